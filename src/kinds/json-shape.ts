
/** Small readers of a probe's JSON reply, so each kind's recognition says what it looks for in one line. */

import { isRecord } from "../parse-json.js";

/** `body[key]` when it is a non-empty string. */
export function stringField(body: unknown, key: string): string | undefined {
  const value = isRecord(body) ? body[key] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** `body[key]` when it is an array. */
export function arrayField(body: unknown, key: string): unknown[] | undefined {
  const value = isRecord(body) ? body[key] : undefined;
  return Array.isArray(value) ? value : undefined;
}
