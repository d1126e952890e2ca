import type { Format } from "../families/index.js";
import { sampleJson } from "./json-sample.js";

type Body = Record<string, unknown>;

/** What a request for JSON of any shape gets: an object, as OpenAI's `json_object` mode promises one. */
const ANY_OBJECT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

const objectAt = (value: unknown, key: string): Body | undefined => {
  const found = typeof value === "object" && value !== null ? (value as Body)[key] : undefined;
  return typeof found === "object" && found !== null ? (found as Body) : undefined;
};

/** An OpenAI or Anthropic `format` object: its schema for `json_schema`, any object for `json_object`. */
function schemaOfFormat(format: Body | undefined, schema: unknown): unknown {
  if (format?.type === "json_schema") return schema ?? ANY_OBJECT;
  return format?.type === "json_object" ? ANY_OBJECT : undefined;
}

/** Gemini's REST API takes its fields in camelCase and in snake_case alike. */
const either = (body: Body | undefined, camel: string, snake: string): unknown => body?.[camel] ?? body?.[snake];

/** Where each format asks for structured output: the schema, `ANY_OBJECT` for JSON of any shape, undefined for text. */
const REQUESTED_SCHEMA: Readonly<Record<Format, (body: Body) => unknown>> = {
  chat: (body) => {
    const format = objectAt(body, "response_format");
    return schemaOfFormat(format, objectAt(format, "json_schema")?.schema);
  },
  responses: (body) => {
    const format = objectAt(objectAt(body, "text"), "format");
    return schemaOfFormat(format, format?.schema);
  },
  // `output_format` is the structured-outputs beta's name for what is now `output_config.format`.
  messages: (body) => {
    const format = objectAt(objectAt(body, "output_config"), "format") ?? objectAt(body, "output_format");
    return schemaOfFormat(format, format?.schema);
  },
  gemini: (body) => {
    const config = objectAt(body, "generationConfig") ?? objectAt(body, "generation_config");
    const mime = either(config, "responseMimeType", "response_mime_type");
    if (typeof mime !== "string" || !mime.toLowerCase().startsWith("application/json")) return undefined;
    return either(config, "responseJsonSchema", "response_json_schema") ?? either(config, "responseSchema", "response_schema") ?? ANY_OBJECT;
  },
};

/**
 * The echo upstream's reply text: `echo` itself, or, for a request that asks for structured output in its format
 * (chat `response_format`, Responses `text.format`, messages `output_config.format`, Gemini
 * `generationConfig.responseMimeType: application/json` with `responseJsonSchema` or `responseSchema`), JSON that
 * fits the schema, with `echo` wherever a free string fits. Gemini CLI's model router asks so, and retried a text
 * answer for a minute and a half.
 */
export function echoReplyText(format: Format, body: Body, echo: string): string {
  const schema = REQUESTED_SCHEMA[format](body);
  return schema === undefined ? echo : JSON.stringify(sampleJson(schema, echo));
}
