import { isRecord } from "../../parse-json.js";
import type { Json } from "../../translate/hub.js";

/**
 * Gemini describes tool parameters and JSON output in two ways, and chat servers take neither as it is:
 * - `parameters` / `responseSchema`: Google's OpenAPI 3.0 subset, with upper-case type names (`"OBJECT"`), a
 *   `nullable` flag in place of a null type, counts as strings (`maxItems: "5"`, int64 in protobuf JSON) and
 *   keywords of its own (`propertyOrdering`, `example`, `format: "enum"`);
 * - `parametersJsonSchema` / `responseJsonSchema`: plain JSON Schema, though Gemini CLI builds its router's
 *   schema from the SDK's `Type` enum, so upper-case type names arrive there too (research C3, H).
 * Both become JSON Schema a strict chat server accepts (an unknown keyword or `"OBJECT"` is a 400 on some,
 * research table E row 21).
 */

/** Lower-case JSON Schema type names; `TYPE_UNSPECIFIED` (the SDK enum's zero value) says nothing. */
function typeName(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(typeName);
  if (typeof value !== "string") return value;
  return value === "TYPE_UNSPECIFIED" ? undefined : value.toLowerCase();
}

const mapValues = (from: Json, convert: (value: unknown) => unknown): Json =>
  Object.fromEntries(Object.entries(from).map(([key, value]) => [key, convert(value)]));

const camelCase = (name: string): string => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** OpenAPI-subset keywords JSON Schema has too, copied unchanged. */
const SAME_KEYWORDS = new Set(["title", "description", "enum", "required", "minimum", "maximum", "pattern", "default", "format"]);
/** Counts that protobuf JSON writes as strings (int64). */
const COUNT_KEYWORDS = new Set(["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]);

/** Adds `null` to what a schema accepts: OpenAPI's `nullable: true`. */
function allowNull(schema: Json): void {
  if (typeof schema.type === "string") schema.type = [schema.type, "null"];
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  else if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: "null" }];
}

/**
 * A schema in Google's OpenAPI subset as JSON Schema: type names lower-cased, `nullable` turned into a null type,
 * counts made numbers, keywords outside the subset (and `format: "enum"`) dropped. Key order is kept, so the
 * same declaration always gives the same bytes (prefix caches on local servers).
 */
export function openApiToJsonSchema(schema: unknown): Json {
  if (!isRecord(schema)) return {};
  const out: Json = {};
  let nullable = false;
  for (const [rawKey, value] of Object.entries(schema)) {
    const key = camelCase(rawKey);
    if (key === "type") {
      const type = typeName(value);
      if (type !== undefined) out.type = type;
    } else if (key === "nullable") nullable = value === true;
    else if (key === "properties" && isRecord(value)) out.properties = mapValues(value, openApiToJsonSchema);
    else if (key === "items" && isRecord(value)) out.items = openApiToJsonSchema(value);
    else if (key === "anyOf" && Array.isArray(value)) out.anyOf = value.map(openApiToJsonSchema);
    else if (COUNT_KEYWORDS.has(key)) {
      const count = typeof value === "string" ? Number(value) : value;
      if (typeof count === "number" && Number.isFinite(count)) out[key] = count;
    } else if (SAME_KEYWORDS.has(key) && !(key === "format" && value === "enum")) out[key] = value;
  }
  if (nullable) allowNull(out);
  return out;
}

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a schema, or a list of schemas (`items` in draft 4's tuple form). */
const SCHEMA_SLOTS = new Set([
  "items",
  "additionalItems",
  "prefixItems",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "anyOf",
  "oneOf",
  "allOf",
]);

/**
 * Plain JSON Schema made safe for a chat server: `$schema` dropped (Groq and others refuse it) and type names
 * lower-cased, at every level. Only schema positions are walked, so a property that happens to be called `type`
 * keeps its name and its schema.
 */
export function cleanJsonSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema") continue;
    if (key === "type") {
      const type = typeName(value);
      if (type !== undefined) out.type = type;
    } else if (SCHEMA_MAPS.has(key) && isRecord(value)) out[key] = mapValues(value, cleanJsonSchema);
    else if (SCHEMA_SLOTS.has(key)) out[key] = Array.isArray(value) ? value.map(cleanJsonSchema) : cleanJsonSchema(value);
    else out[key] = value;
  }
  return out;
}
