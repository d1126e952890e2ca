/**
 * The Anthropic Messages shapes the translators read, typed loosely: a client body has passed only the gateway's
 * basic checks, and an upstream may send blocks newer than this file, so every field is read as `unknown` first.
 */

import { isRecord } from "../../parse-json.js";

/** A content block of any kind (`text`, `image`, `tool_use`, `tool_result`, `thinking`, ...). */
export type Block = { type?: unknown; [field: string]: unknown };

/** Messages' token counts, every key always present (Claude Code reads each of them). */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A message's `content`: a string is one text block; anything that is not a list of objects is no blocks. */
export function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The text of a text block, or "" for any other block. */
export const textOf = (block: Block): string => (block.type === "text" && typeof block.text === "string" ? block.text : "");

/** A finite number above zero, or undefined. */
export const positive = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined);
