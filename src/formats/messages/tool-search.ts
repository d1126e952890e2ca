import { isRecord } from "../../parse-json.js";
import { type Block, blocksOf } from "./wire.js";

/**
 * Claude Code's tool search on a translated route (SPEC 12). With it on, deferred tools arrive with
 * `defer_loading: true`, and the result of its ToolSearch tool holds `tool_reference` blocks naming the tools to load
 * (`{"type": "tool_reference", "tool_name": "..."}`, Anthropic's tool search tool). Anthropic's API expands a
 * reference into the tool's definition; a chat server cannot, so the gateway does: a deferred tool goes upstream only
 * once a reference to it is in the conversation, and the reference reads as text.
 */

/** The tools the conversation's tool results have loaded by `tool_reference`. */
export function loadedTools(messages: unknown): Set<string> {
  const loaded = new Set<string>();
  for (const message of Array.isArray(messages) ? messages.filter(isRecord) : []) {
    for (const block of blocksOf(message.content)) {
      if (block.type !== "tool_result") continue;
      for (const part of blocksOf(block.content)) if (part.type === "tool_reference" && typeof part.tool_name === "string") loaded.add(part.tool_name);
    }
  }
  return loaded;
}

/** Whether a tool goes upstream: any tool that is not deferred, and a deferred one once loaded. */
export const sentNow = (tool: Record<string, unknown>, loaded: ReadonlySet<string>): boolean =>
  tool.defer_loading !== true || (typeof tool.name === "string" && loaded.has(tool.name));

/** A `tool_reference` block as the text a tool result carries instead. */
export const referenceText = (block: Block): string => `Tool loaded: ${typeof block.tool_name === "string" ? block.tool_name : ""}`;
