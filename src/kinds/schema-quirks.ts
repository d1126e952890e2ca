import type { Json } from "../translate/hub.js";
import { isRecord } from "../formats/messages/wire.js";
import type { KindQuirks } from "./types.js";

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas (JSON Schema 2020-12). */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** Whether a kind's server needs its tool schemas changed at all. */
export const needsSchemaFix = (quirks: Pick<KindQuirks, "refusedSchemaKeywords" | "booleanSchemas">): boolean =>
  quirks.refusedSchemaKeywords.length > 0 || !quirks.booleanSchemas;

/**
 * A tool's parameters as the kind's server takes them: its refused keywords left out at any depth (never a property
 * that happens to share a keyword's name), and, where the server takes no boolean sub-schema, `true` as `{}` and
 * `false` as `{"not": {}}` (which accept the same). `additionalProperties: true` and `false` stay: they are a keyword's value, not a sub-schema, at
 * the object's own level.
 */
export function fixSchema(schema: unknown, quirks: Pick<KindQuirks, "refusedSchemaKeywords" | "booleanSchemas">): unknown {
  const sub = (value: unknown): unknown => (typeof value === "boolean" && !quirks.booleanSchemas ? (value ? {} : { not: {} }) : fixSchema(value, quirks));
  if (!isRecord(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (quirks.refusedSchemaKeywords.includes(key)) continue;
    if (key === "additionalProperties" && typeof value === "boolean") out[key] = value;
    else if (ONE.includes(key)) out[key] = Array.isArray(value) ? value.map(sub) : sub(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map(sub);
    else if (MAP.includes(key) && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, sub(item)]));
    else out[key] = value;
  }
  return out;
}
