import { badRequest, unsupportedMediaType } from "../../errors/index.js";
import type { Claim } from "../../families/index.js";

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semicolon = header.indexOf(";");
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === "application/json";
}

/**
 * Stage 5b: the checks of the known endpoints (SPEC section 3.5): JSON content type, a JSON object, the required
 * fields with the right types, and a model in the path where the family puts it there. Returns the parsed
 * object, only to be looked at (the original bytes are what goes upstream), or undefined for passthrough paths.
 */
export function checkBody(claim: Claim, contentType: string | undefined, body: Buffer | undefined): Record<string, unknown> | undefined {
  if (claim.pathModel === "") {
    throw badRequest("The path names no model. Use .../models/<model>:generateContent.", { param: "model", code: "missing_model" });
  }
  const rules = claim.rules;
  if (!rules) return undefined;
  if (!isJsonContentType(contentType)) throw unsupportedMediaType();
  let data: unknown;
  try {
    data = JSON.parse(body ? body.toString("utf8") : "");
  } catch {
    throw badRequest("The request body is not valid JSON. Send a JSON object.", { code: "invalid_json" });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw badRequest("The request body must be a JSON object.", { code: "invalid_json" });
  }
  const record = data as Record<string, unknown>;
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
