import { CliError } from "../errors.js";
import { ECHO_UPSTREAM, type ConfigFields, type Timeouts } from "./types.js";
import { isLoopbackHost } from "./loopback.js";

/** Where a value came from, for messages: a file path, `GATEWAY_PORT`, `--port`. */
export type Source = string;

function invalid(source: Source, field: string, expected: string, value: unknown): CliError {
  return new CliError(`Invalid configuration in ${source}: "${field}" must be ${expected} (got ${JSON.stringify(value)}).`, {
    hint: "Fix the value, or remove it to use the default. `gateway --help` lists every option.",
    exitCode: 2,
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

/** One URL path segment that cannot collide with the chat family's `/v1`. */
export function validateSegment(source: Source, value: unknown, field = "messagesSegment"): string {
  const segment = text(source, field, value);
  if (!SEGMENT.test(segment) || segment === "v1" || segment === "health") {
    throw invalid(source, field, 'one path segment of letters, digits, "-", "_", "." or "~" (not "v1" or "health")', value);
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

function validateTimeouts(source: Source, value: unknown): Partial<Timeouts> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(source, "timeouts", "an object with connectMs, firstByteMs and idleMs", value);
  }
  const out: Partial<Timeouts> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== "connectMs" && key !== "firstByteMs" && key !== "idleMs") {
      throw invalid(source, `timeouts.${key}`, "absent (known fields: connectMs, firstByteMs, idleMs)", v);
    }
    out[key] = integer(source, `timeouts.${key}`, v, 1, 24 * 3600 * 1000);
  }
  return out;
}

type FieldValidators = {
  [K in keyof ConfigFields]: (source: Source, value: unknown) => ConfigFields[K] | Partial<Timeouts>;
};

const VALIDATORS: FieldValidators = {
  upstream: (s, v) => validateUpstream(s, v),
  messagesSegment: (s, v) => validateSegment(s, v),
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
};

/** The partial config a file declares: every field checked, unknown fields refused. */
export type FileFields = Partial<Omit<ConfigFields, "timeouts">> & { timeouts?: Partial<Timeouts> };

export function validateFileFields(source: Source, data: unknown): FileFields {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw invalid(source, "(root)", "a JSON object", data);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema") continue;
    const validate = VALIDATORS[key as keyof ConfigFields];
    if (!validate) {
      throw invalid(source, key, `absent: unknown field (known fields: ${Object.keys(VALIDATORS).join(", ")})`, value);
    }
    out[key] = validate(source, value);
  }
  return out as FileFields;
}
