import { isRecord } from "../../parse-json.js";
import type { Json } from "../../translate/hub.js";
import { patternAccepted } from "./pattern-syntax.js";
import type { KindQuirks } from "../../translate/server-quirks.js";

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas (JSON Schema 2020-12). */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

type SchemaQuirks = Pick<KindQuirks, "refusedSchemaKeywords" | "booleanSchemas" | "refusedPatternSyntax" | "schemaFormats">;

/** Whether a kind's server needs its tool schemas changed at all. */
export const needsSchemaFix = (quirks: SchemaQuirks): boolean =>
  quirks.refusedSchemaKeywords.length > 0 || !quirks.booleanSchemas || quirks.refusedPatternSyntax.length > 0 || quirks.schemaFormats !== "any";

/**
 * A tool's parameters as the kind's server takes them: its refused keywords left out at any depth (never a property
 * that happens to share a keyword's name), and, where the server takes no boolean sub-schema, `true` as `{}` and
 * `false` as `{"not": {}}` (which accept the same). `additionalProperties: true` and `false` stay: they are a
 * keyword's value, not a sub-schema, at the object's own level. A `pattern` or `format` the server cannot take moves
 * into the schema's `description` (SPEC 12), so the model still reads it.
 */
export function fixSchema(schema: unknown, quirks: SchemaQuirks): unknown {
  const sub = (value: unknown): unknown => (typeof value === "boolean" && !quirks.booleanSchemas ? (value ? {} : { not: {} }) : fixSchema(value, quirks));
  if (!isRecord(schema)) return schema;
  const out: Json = {};
  const moved: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (quirks.refusedSchemaKeywords.includes(key)) continue;
    if (key === "pattern" && typeof value === "string" && !patternAccepted(value, quirks.refusedPatternSyntax)) moved.push(`pattern: ${value}`);
    else if (key === "format" && typeof value === "string" && quirks.schemaFormats !== "any" && !quirks.schemaFormats.includes(value)) moved.push(`format: ${value}`);
    else if (key === "additionalProperties" && typeof value === "boolean") out[key] = value;
    else if (ONE.includes(key)) out[key] = Array.isArray(value) ? value.map(sub) : sub(value);
    else if (LIST.includes(key) && Array.isArray(value)) out[key] = value.map(sub);
    else if (MAP.includes(key) && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, sub(item)]));
    else out[key] = value;
  }
  if (moved.length) out.description = describedWith(out.description, moved);
  return out;
}

/** A description with the moved constraints after it: `Key name (pattern: ^[a-z]+$)`. */
function describedWith(description: unknown, moved: readonly string[]): string {
  const note = moved.map((item) => `(${item})`).join(" ");
  return typeof description === "string" && description !== "" ? `${description} ${note}` : note;
}
