import { badRequest, unsupportedMediaType } from "../../errors/index.js";
import type { Endpoint } from "../../formats/index.js";

/** A JSON object from `text`, or the 400 a client gets for anything else. */
function parseObject(text: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw badRequest("The request body is not valid JSON. Send a JSON object.", { code: "invalid_json" });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw badRequest("The request body must be a JSON object.", { code: "invalid_json" });
  }
  return data as Record<string, unknown>;
}

/**
 * The body of a request the gateway must translate or count, parsed: endpoints without body rules
 * (`/v1/responses`, Gemini `:countTokens`) are only parsed when a route needs to read them.
 */
export function requireJson(request: { readonly json: Record<string, unknown> | undefined; bytes: Buffer | undefined }): Record<string, unknown> {
  return request.json ?? parseObject(request.bytes ? request.bytes.toString("utf8") : "");
}

/**
 * The text `JSON.parse` reads to check a body whose values need not be its own: each byte as one character
 * (latin1), about a third of the time of decoding UTF-8 for a body with any byte of 0x80 or more, and no fewer
 * checks. `JSON.parse` accepts and refuses exactly the bodies it would as UTF-8: outside strings JSON is ASCII, and
 * inside one any character from U+0020 up is allowed, however those bytes decode. Structure, keys, numbers,
 * booleans and ASCII strings parse the same either way; only strings holding such bytes read differently.
 */
export function textToCheck(body: Buffer | undefined): string {
  if (!body) return "";
  // In pieces: Node makes a latin1 string of 1 MB or more an external string, whose memory outside the heap makes
  // V8 collect garbage far more often (3x the collector's time at 3 MB, measured); and pieces of 512 KB are each a
  // large object of V8's, mapped afresh, where one of 64 KB is made in the young generation like any small string
  // (issue 53: 0.72-0.88x the CPU of 512 KB pieces at 3 MB, 0.79-0.86x at 1 MB).
  let text = "";
  for (let start = 0; start < body.length; start += LATIN1_PIECE) text += body.toString("latin1", start, Math.min(start + LATIN1_PIECE, body.length));
  return text;
}

/** Below V8's largest regular object (128 KB; above it a string is a large object) and Node's `EXTERN_APEX` (0xFBEE9 bytes). */
const LATIN1_PIECE = 64 * 1024;

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semicolon = header.indexOf(";");
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === "application/json";
}

/**
 * The checks of the known endpoints (SPEC section 3.5): JSON content type, a JSON object, the required
 * fields with the right types, and a model in the path where the family puts it there. `text` is the body decoded
 * as UTF-8, or `textToCheck`'s. Returns the parsed object, only to be looked at (the original bytes are what goes
 * upstream), or undefined for passthrough paths.
 */
export function checkBody(claim: Pick<Endpoint, "pathModel" | "rules">, contentType: string | undefined, text: string): Record<string, unknown> | undefined {
  if (claim.pathModel === "") {
    throw badRequest("The path names no model. Use .../models/<model>:generateContent.", { param: "model", code: "missing_model" });
  }
  const rules = claim.rules;
  if (!rules) return undefined;
  if (!isJsonContentType(contentType)) throw unsupportedMediaType();
  const record = parseObject(text);
  for (const [field, expected, test] of rules) {
    if (!Object.hasOwn(record, field)) {
      throw badRequest(`Missing required field "${field}": it must be ${expected}.`, { param: field, code: "missing_required_field" });
    }
    if (!test(record[field])) {
      throw badRequest(`Field "${field}" must be ${expected}.`, { param: field, code: "invalid_type" });
    }
  }
  return record;
}
