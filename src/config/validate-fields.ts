import leven from "leven";
import { ConfigError, type ConfigSource } from "../errors/index.js";
import { isLoopbackHost } from "./loopback.js";
import { CAPTURE_MODES, ECHO_UPSTREAM, type CaptureMode, type ConfigFields, type Timeouts } from "./types.js";

/** Where a value came from, for messages (a file path, `GATEWAY_PORT`, `--port`) and for the exit code. */
export interface Source {
  label: string;
  kind: ConfigSource;
}

export const FLAG_SOURCE: Source = { label: "the command line", kind: "flag" };
export const envSource = (name: string): Source => ({ label: name, kind: "env" });
export const fileSource = (path: string): Source => ({ label: path, kind: "file" });

function invalid(source: Source, field: string, expected: string, value: unknown): ConfigError {
  const shown = value === undefined ? "nothing" : JSON.stringify(value);
  return new ConfigError(`Invalid configuration in ${source.label}: "${field}" must be ${expected} (got ${shown}).`, source.kind, {
    hint:
      source.kind === "flag"
        ? "Fix the value; `gateway <command> --help` lists every option."
        : "Fix the value, or remove it to use the default. The README's Configuration section lists every field.",
  });
}

function integer(source: Source, field: string, value: unknown, min: number, max: number): number {
  const n = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw invalid(source, field, `an integer from ${min} to ${max}`, value);
  }
  return n;
}

function text(source: Source, field: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(source, field, "a non-empty string", value);
  return value.trim();
}

/** `echo`, or an http(s) URL without query or fragment; plain http only for loopback hosts. */
export function validateUpstream(source: Source, value: unknown, field = "upstream"): string {
  const raw = text(source, field, value);
  if (raw === ECHO_UPSTREAM) return raw;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(source, field, `"echo" or a URL such as https://gateway.example.com`, value);
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw invalid(source, field, "an https:// URL (plain http:// is only allowed for loopback hosts)", value);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw invalid(source, field, "a base URL without credentials, query or fragment", value);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;
/** Segments that would shadow another route. */
const RESERVED_SEGMENTS = new Set(["v1", "v1beta", "health", "ui"]);

/** One URL path segment that cannot collide with `/v1`, `/v1beta`, `/health` or `/ui`. */
export function validateSegment(source: Source, value: unknown, field: string): string {
  const segment = text(source, field, value);
  if (!SEGMENT.test(segment) || RESERVED_SEGMENTS.has(segment)) {
    throw invalid(source, field, 'one path segment of letters, digits, "-", "_", "." or "~" (not "v1", "v1beta", "health" or "ui")', value);
  }
  return segment;
}

export function validatePort(source: Source, value: unknown, field = "port"): number {
  return integer(source, field, value, 0, 65535);
}

export function validateHost(source: Source, value: unknown, field = "host"): string {
  return text(source, field, value);
}

/** A browser origin (`scheme://host[:port]`), normalised as browsers send it. */
export function validateOrigin(source: Source, value: unknown, field = "cors"): string {
  const raw = text(source, field, value);
  try {
    const url = new URL(raw);
    if (url.origin !== "null" && (url.pathname === "/" || url.pathname === "") && !url.search) return url.origin;
  } catch {
    // fall through to the error below
  }
  throw invalid(source, field, "an origin such as http://localhost:3000", value);
}

export function validateCapture(source: Source, value: unknown, field = "capture"): CaptureMode {
  if (typeof value === "string" && (CAPTURE_MODES as readonly string[]).includes(value)) return value as CaptureMode;
  throw invalid(source, field, `one of ${CAPTURE_MODES.map((mode) => `"${mode}"`).join(", ")}`, value);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The one known name closest to `name`, when it is close enough to be a likely typo. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = leven(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function unknownField(source: Source, field: string, known: readonly string[], value: unknown): ConfigError {
  const near = closest(field.split(".").pop()!, known);
  return invalid(source, field, `absent: it is not a known field${near ? ` (did you mean "${near}"?)` : ` (known fields: ${known.join(", ")})`}`, value);
}

const TIMEOUT_FIELDS = ["connectMs", "firstByteMs", "idleMs"] as const;

function validateTimeouts(source: Source, value: unknown): Partial<Timeouts> {
  if (!isPlainObject(value)) throw invalid(source, "timeouts", "an object with connectMs, firstByteMs and idleMs", value);
  const out: Partial<Timeouts> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!(TIMEOUT_FIELDS as readonly string[]).includes(key)) throw unknownField(source, `timeouts.${key}`, TIMEOUT_FIELDS, v);
    out[key as keyof Timeouts] = integer(source, `timeouts.${key}`, v, 1, 24 * 3600 * 1000);
  }
  return out;
}

/** Model aliases: non-empty ids to non-empty ids, kept in file order (pattern order matters). */
function validateModels(source: Source, value: unknown): Readonly<Record<string, string>> {
  if (!isPlainObject(value)) throw invalid(source, "models", 'an object mapping model ids to catalog ids, e.g. {"gpt-4o": "openai/gpt-4o"}', value);
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [alias, target] of Object.entries(value)) {
    const field = `models[${JSON.stringify(alias)}]`;
    if (alias.trim() === "") throw invalid(source, "models", "an object whose keys are non-empty model ids", value);
    if (typeof target !== "string" || target.trim() === "" || target.includes("*")) {
      throw invalid(source, field, "a non-empty catalog model id (no *)", target);
    }
    out[alias] = target.trim();
  }
  return Object.freeze(out);
}

type FieldValidators = {
  [K in keyof ConfigFields]: (source: Source, value: unknown) => unknown;
};

const VALIDATORS: FieldValidators = {
  upstream: (s, v) => validateUpstream(s, v),
  messagesSegment: (s, v) => validateSegment(s, v, "messagesSegment"),
  geminiSegment: (s, v) => validateSegment(s, v, "geminiSegment"),
  port: (s, v) => validatePort(s, v),
  host: (s, v) => validateHost(s, v),
  cors: (s, v) => {
    if (!Array.isArray(v)) throw invalid(s, "cors", "an array of origins", v);
    return v.map((origin) => validateOrigin(s, origin));
  },
  defaultModel: (s, v) => text(s, "defaultModel", v),
  anthropicVersion: (s, v) => text(s, "anthropicVersion", v),
  retries: (s, v) => integer(s, "retries", v, 0, 10),
  timeouts: (s, v) => validateTimeouts(s, v),
  maxBodyBytes: (s, v) => integer(s, "maxBodyBytes", v, 1024, 1024 * 1024 * 1024),
  models: (s, v) => validateModels(s, v),
  capture: (s, v) => validateCapture(s, v),
};

const KNOWN_FIELDS = Object.keys(VALIDATORS);

/** The partial config a file declares: every field checked, unknown fields refused. */
export type FileFields = Partial<Omit<ConfigFields, "timeouts">> & { timeouts?: Partial<Timeouts> };

export function validateFileFields(source: Source, data: unknown): FileFields {
  if (!isPlainObject(data)) throw invalid(source, "(root)", "a JSON object", data);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema") continue;
    // Own keys only: `constructor` or `toString` must not find Object.prototype's members.
    if (!Object.hasOwn(VALIDATORS, key)) throw unknownField(source, key, KNOWN_FIELDS, value);
    out[key] = VALIDATORS[key as keyof ConfigFields](source, value);
  }
  return out as FileFields;
}
