import { badRequest, unsupportedMediaType } from "../errors.js";
import type { Endpoint } from "./resolve-route.js";

type FieldRule = readonly [field: string, expected: string, test: (value: unknown) => boolean];

const isString = (v: unknown) => typeof v === "string";
const isArray = (v: unknown) => Array.isArray(v);
const isPositiveInteger = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v > 0;

/** Required fields of the three endpoints the gateway checks (SPEC section 3.5). */
const RULES: Partial<Record<Endpoint, readonly FieldRule[]>> = {
  chat_completions: [
    ["model", "a string", isString],
    ["messages", "an array", isArray],
  ],
  messages: [
    ["model", "a string", isString],
    ["max_tokens", "an integer greater than 0", isPositiveInteger],
    ["messages", "an array", isArray],
  ],
  count_tokens: [
    ["model", "a string", isString],
    ["messages", "an array", isArray],
  ],
};

/** What the gateway learns from a checked body, for its log line. */
export interface BodyFacts {
  model: string | undefined;
  stream: boolean;
}

/** Whether this endpoint's body is checked at all. */
export function isCheckedEndpoint(endpoint: Endpoint): boolean {
  return RULES[endpoint] !== undefined;
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semicolon = header.indexOf(";");
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === "application/json";
}

/**
 * Checks the content type, that the body is a JSON object and that it carries the endpoint's required fields.
 * The parsed object is only looked at; the original bytes are what goes upstream.
 */
export function checkBody(endpoint: Endpoint, contentType: string | undefined, body: Buffer): BodyFacts {
  const rules = RULES[endpoint];
  if (!rules) return { model: undefined, stream: false };
  if (!isJsonContentType(contentType)) throw unsupportedMediaType();
  let data: unknown;
  try {
    data = JSON.parse(body.toString("utf8"));
  } catch {
    throw badRequest("The request body is not valid JSON. Send a JSON object.", { code: "invalid_json" });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw badRequest("The request body must be a JSON object.", { code: "invalid_json" });
  }
  const record = data as Record<string, unknown>;
  for (const [field, expected, test] of rules) {
    if (!(field in record)) {
      throw badRequest(`Missing required field "${field}": it must be ${expected}.`, { param: field, code: "missing_required_field" });
    }
    if (!test(record[field])) {
      throw badRequest(`Field "${field}" must be ${expected}.`, { param: field, code: "invalid_type" });
    }
  }
  return { model: record.model as string, stream: record.stream === true };
}
