import * as v from "valibot";
import { fields } from "./shapes.js";

/**
 * The single values of a config (SPEC section 7). Each schema's messages are the "expected" part of the error
 * (`"port" must be <an integer from 0 to 65535>`); `issue-message.ts` adds the source, the field and the value.
 */

/** A number written in quotes, which JSON reads as a string. */
const QUOTED_NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;

/**
 * An integer from `min` to `max`, as config.json writes one: a JSON number. `"port": "8484"` is refused as `"abc"`
 * is (a quoted number is a string in JSON, and accepting one but not the other read as a bug).
 */
export const integer = (min: number, max: number, expected = `an integer from ${min} to ${max}`) =>
  v.pipe(
    v.number((issue) => (typeof issue.input === "string" && QUOTED_NUMBER.test(issue.input) ? `${expected} (a JSON number, without quotes)` : expected)),
    v.integer(expected),
    v.minValue(min, expected),
    v.maxValue(max, expected),
  );

const NON_EMPTY = "a non-empty string";
/** A string with something in it, trimmed. */
export const nonEmptyText = v.pipe(v.string(NON_EMPTY), v.trim(), v.nonEmpty(NON_EMPTY));

export const port = integer(0, 65535);
/** A port as an environment variable or a flag gives it: text of digits (or a number a caller already made). */
export const portText = v.pipe(
  v.unknown(),
  v.transform((value) => (typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value)),
  v.union([port], "an integer from 0 to 65535"),
);
export const retries = integer(0, 10);
export const maxBodyBytes = integer(1024, 1024 * 1024 * 1024);
/** Up to ten minutes: past that, `gateway stop` (15 s, then SIGKILL) would cut the drain short anyway. */
export const shutdownGraceMs = integer(0, 600_000);

const ORIGIN = "an origin such as http://localhost:3000";
const originOf = (value: string): string | undefined => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  return url && url.origin !== "null" && (url.pathname === "/" || url.pathname === "") && !url.search ? url.origin : undefined;
};
/** A browser origin (`scheme://host[:port]`), normalised as browsers send it. */
export const origin = v.pipe(
  nonEmptyText,
  v.check((value) => originOf(value) !== undefined, ORIGIN),
  v.transform((value) => originOf(value)!),
);

/** `off`, `errors` (requests that failed) or `all`. */
export const CAPTURE_MODES = ["off", "errors", "all"] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

export const capture = v.picklist(CAPTURE_MODES, `one of ${CAPTURE_MODES.map((mode) => `"${mode}"`).join(", ")}`);

const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;
/** Segments that would shadow another local route. */
const RESERVED_SEGMENTS = new Set(["v1", "v1beta", "health", "ui"]);
const SEGMENT_EXPECTED = 'one path segment of letters, digits, "-", "_", "." or "~" (not "v1", "v1beta", "health" or "ui"), or "" for none';
/**
 * A family's path segment (SPEC sections 1 and 10): one path segment that cannot collide with `/v1`, `/v1beta`,
 * `/health` or `/ui`, or `""` when the family lives directly under the base (LiteLLM, api.anthropic.com).
 */
export const segment = v.pipe(
  v.string(SEGMENT_EXPECTED),
  v.check((value) => value === "" || (SEGMENT.test(value.trim()) && !RESERVED_SEGMENTS.has(value.trim())), SEGMENT_EXPECTED),
  v.trim(),
);

/** At most a day: longer than any reply. */
const timeout = v.optional(integer(1, 24 * 3600 * 1000));
/** `connectMs`, `firstByteMs`, `idleMs`: each optional, each filled from the level above. */
export const timeouts = fields({ connectMs: timeout, firstByteMs: timeout, idleMs: timeout }, "an object with connectMs, firstByteMs and idleMs");
