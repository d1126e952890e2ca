import { parseJsonObject } from "../parse-json.js";
import type { FamilyName } from "../families/index.js";

/** One turn of a terminal conversation. */
export interface Turn {
  role: "user" | "assistant";
  content: string;
}

export interface ChatRequestOptions {
  family: FamilyName;
  model: string;
  system: string | undefined;
  maxTokens: number | undefined;
  stream: boolean;
}

/** Default `max_tokens` for the messages family, which requires one. */
export const DEFAULT_MAX_TOKENS = 4096;

/** The request body for a conversation, in the family's own shape. */
export function buildChatBody(turns: readonly Turn[], options: ChatRequestOptions): Record<string, unknown> {
  if (options.family === "messages") {
    return {
      model: options.model,
      max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...(options.system ? { system: options.system } : {}),
      messages: turns,
      ...(options.stream ? { stream: true } : {}),
    };
  }
  return {
    model: options.model,
    messages: options.system ? [{ role: "system", content: options.system }, ...turns] : turns,
    ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
    ...(options.stream ? { stream: true } : {}),
  };
}

type Json = Record<string, unknown>;

/** The reply text of a non-stream response of either family. */
export function replyText(family: FamilyName, body: Json): string {
  if (family === "messages") {
    const content = Array.isArray(body.content) ? (body.content as Json[]) : [];
    return content.filter((block) => block.type === "text").map((block) => String(block.text)).join("");
  }
  const choice = (Array.isArray(body.choices) ? body.choices[0] : undefined) as { message?: { content?: unknown } } | undefined;
  return typeof choice?.message?.content === "string" ? choice.message.content : "";
}

/** What one stream event contributes: text, an upstream error, or nothing. */
export type StreamPiece = { text: string } | { error: string } | undefined;

/** Reads one server-sent event of either family. */
export function streamPiece(family: FamilyName, event: string | undefined, data: string): StreamPiece {
  if (data === "[DONE]") return undefined;
  const parsed = parseJsonObject(data);
  if (!parsed) return undefined;
  const error = parsed.error as { message?: unknown } | undefined;
  if (error && (family === "chat" || event === "error" || parsed.type === "error")) {
    return { error: typeof error.message === "string" ? error.message : "the upstream reported an error" };
  }
  if (family === "messages") {
    const delta = parsed.delta as { type?: unknown; text?: unknown } | undefined;
    return parsed.type === "content_block_delta" && delta?.type === "text_delta" && typeof delta.text === "string" ? { text: delta.text } : undefined;
  }
  const choice = (Array.isArray(parsed.choices) ? parsed.choices[0] : undefined) as { delta?: { content?: unknown } } | undefined;
  return typeof choice?.delta?.content === "string" && choice.delta.content ? { text: choice.delta.content } : undefined;
}
