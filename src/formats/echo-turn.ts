import { randomUUID } from "node:crypto";

/** What every reply of the offline echo upstream is built from, in any format. */
export interface EchoTurn {
  model: string;
  text: string;
  inputTokens: number;
}

/** Models the echo upstream lists. */
export const ECHO_MODELS = ["echo-1", "echo-mini"] as const;

/** Roughly four characters a token, never zero. */
export const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/** The reply split into word-sized pieces for streaming: joined back, they are the reply exactly. */
export function streamPieces(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

/** An id with the format's prefix, as providers make them. */
export const echoId = (prefix: string, length = 24): string => `${prefix}${randomUUID().replaceAll("-", "").slice(0, length)}`;

/** Seconds since the epoch, as OpenAI's replies say when. */
export const unixNow = (): number => Math.floor(Date.now() / 1000);

type Body = Record<string, unknown>;

/** What a request for JSON of any shape gets: an object, as OpenAI's `json_object` mode promises one. */
export const ANY_OBJECT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

/** The object at `key` of `value`, if it is one. */
export const objectAt = (value: unknown, key: string): Body | undefined => {
  const found = typeof value === "object" && value !== null ? (value as Body)[key] : undefined;
  return typeof found === "object" && found !== null ? (found as Body) : undefined;
};

/** An OpenAI or Anthropic `format` object: its schema for `json_schema`, any object for `json_object`. */
export function schemaOfFormat(format: Body | undefined, schema: unknown): unknown {
  if (format?.type === "json_schema") return schema ?? ANY_OBJECT;
  return format?.type === "json_object" ? ANY_OBJECT : undefined;
}
