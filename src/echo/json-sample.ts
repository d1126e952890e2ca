/**
 * A JSON value that fits a JSON Schema, for the echo upstream's answer to a structured-output request. Libraries that
 * do this (openapi-sampler and its forks) write "string" into every string, read no upper-case type (Gemini's
 * OpenAPI subset, which Gemini CLI also sends as `responseJsonSchema`) and bring an XML parser along: this is the
 * small part the echo upstream needs.
 *
 * What it reads: `$ref` to the same document, `const`, `enum` (the first value), `anyOf`/`oneOf` (the first branch
 * that is not null), `allOf` (merged), `type` (a list of types: the first that is not null; upper-case too; none:
 * guessed from `properties` or `items`), objects (their required properties, or all of them when the schema names
 * none required), arrays (`prefixItems`, `minItems` or one item, distinct under `uniqueItems`), strings (`text`, cut
 * to `maxLength` and padded to `minLength`; a plausible value for the common `format`s), numbers (1, moved into
 * `minimum`/`maximum` and onto `multipleOf`), booleans and null. It does not read `pattern`.
 */

type Schema = Record<string, unknown>;

/** Deeper than this, a schema that refers to itself gets null: a reply, not a loop. */
const MAX_DEPTH = 24;

const FORMATS: Readonly<Record<string, string>> = {
  "date-time": "2025-01-01T00:00:00Z",
  date: "2025-01-01",
  time: "00:00:00Z",
  duration: "P1D",
  email: "echo@example.com",
  "idn-email": "echo@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "127.0.0.1",
  ipv6: "::1",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
};

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);
const schemas = (value: unknown): Schema[] => (Array.isArray(value) ? value.filter(isSchema) : []);

/** `#/$defs/name`, `#/definitions/name`, any JSON pointer into the document; undefined when it leads nowhere. */
function resolve(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const token of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~");
    node = isSchema(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** The schema's own type, lower-case: the first of a list that is not null, else what its keywords imply. */
function typeOf(schema: Schema): string | undefined {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t): t is string => typeof t === "string").map((t) => t.toLowerCase());
  const type = types.find((t) => t !== "null") ?? types[0];
  if (type) return type;
  if (isSchema(schema.properties) || schema.required !== undefined) return "object";
  if (schema.items !== undefined || schema.prefixItems !== undefined) return "array";
  return undefined;
}

function numberFor(schema: Schema, integer: boolean, variant: number): number {
  const number = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  const step = integer ? 1 : 0.5;
  // Draft 4 says exclusiveMinimum: true beside minimum; later drafts give the bound itself.
  const low = number("exclusiveMinimum") ?? (schema.exclusiveMinimum === true ? number("minimum") : undefined);
  const high = number("exclusiveMaximum") ?? (schema.exclusiveMaximum === true ? number("maximum") : undefined);
  const min = low !== undefined ? low + step : number("minimum");
  const max = high !== undefined ? high - step : number("maximum");
  let value = (min ?? Math.min(1, max ?? 1)) + variant;
  if (max !== undefined && value > max) value = max;
  if (integer) value = Math.ceil(value);
  const multiple = number("multipleOf");
  if (multiple) value = Math.ceil(value / multiple) * multiple;
  return value;
}

function stringFor(schema: Schema, text: string, variant: number): string {
  const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
  let value = `${format ?? text}${variant ? ` ${variant + 1}` : ""}`;
  if (typeof schema.maxLength === "number") value = [...value].slice(0, schema.maxLength).join("");
  if (typeof schema.minLength === "number") value = value.padEnd(value.length + Math.max(0, schema.minLength - [...value].length), ".");
  return value;
}

function arrayFor(schema: Schema, text: string, root: unknown, depth: number): unknown[] {
  const prefix = schemas(schema.prefixItems).length ? schemas(schema.prefixItems) : schemas(schema.items);
  const rest = isSchema(schema.items) ? schema.items : {};
  const min = typeof schema.minItems === "number" ? schema.minItems : 1;
  const count = Math.max(prefix.length, Math.min(min === 0 ? 1 : min, typeof schema.maxItems === "number" ? schema.maxItems : Infinity));
  // Items of a `uniqueItems` array differ in their strings and numbers.
  return Array.from({ length: count }, (_, i) => sample(prefix[i] ?? rest, text, root, depth + 1, schema.uniqueItems === true ? i : 0));
}

function objectFor(schema: Schema, text: string, root: unknown, depth: number): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const names = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : Object.keys(properties);
  const other = isSchema(schema.additionalProperties) ? schema.additionalProperties : {};
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = sample(properties[name] ?? other, text, root, depth + 1, 0);
  return out;
}

/** `allOf`'s schemas and the rest of `schema` as one: their properties and their required lists joined. */
function merged(schema: Schema, parts: Schema[]): Schema {
  const { allOf: _, ...own } = schema;
  const all = [...parts, own];
  const out: Schema = Object.assign({}, ...all, { properties: Object.assign({}, ...all.map((part) => (isSchema(part.properties) ? part.properties : {}))) });
  const required = all.filter((part) => Array.isArray(part.required));
  if (required.length) out.required = [...new Set(required.flatMap((part) => part.required as unknown[]))];
  return out;
}

function sample(node: unknown, text: string, root: unknown, depth: number, variant: number): unknown {
  if (depth > MAX_DEPTH || node === false) return null;
  if (!isSchema(node)) return stringFor({}, text, variant);
  if (typeof node.$ref === "string") return sample(resolve(root, node.$ref), text, root, depth + 1, variant);
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  const branches = schemas(node.anyOf).length ? schemas(node.anyOf) : schemas(node.oneOf);
  if (branches.length) {
    return sample(branches.find((branch) => typeOf(branch) !== "null") ?? branches[0], text, root, depth + 1, variant);
  }
  if (schemas(node.allOf).length) return sample(merged(node, schemas(node.allOf)), text, root, depth + 1, variant);
  switch (typeOf(node)) {
    case "object":
      return objectFor(node, text, root, depth);
    case "array":
      return arrayFor(node, text, root, depth);
    case "integer":
      return numberFor(node, true, variant);
    case "number":
      return numberFor(node, false, variant);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return stringFor(node, text, variant);
  }
}

/** A value that fits `schema`, with `text` wherever a free string fits. */
export function sampleJson(schema: unknown, text: string): unknown {
  return sample(schema, text, schema, 0, 0);
}
