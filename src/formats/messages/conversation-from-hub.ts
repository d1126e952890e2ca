import { isRecord } from "../../parse-json.js";
import type { HubMessage } from "../../translate/hub.js";
import { readToolArguments } from "../../translate/tool-arguments.js";
import { requestToolUseId } from "./tool-ids.js";
import { type Block } from "./wire.js";

/** One messages turn as it is being built. */
interface MessagesTurn {
  role: "user" | "assistant";
  content: Block[];
}

/** A data URL as a base64 source; any other URL as a URL source. */
function imageSource(url: string): Block {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data ? { type: "base64", media_type: data[1], data: data[2] } : { type: "url", url };
}

/** Text Anthropic takes as a text block: not empty, not white space alone (it answers 400 `text content blocks must contain non-whitespace text`). */
const hasText = (text: unknown): text is string => typeof text === "string" && text.trim() !== "";

/**
 * Chat content (a string, or parts) as messages blocks: text parts as text blocks (never an empty or blank one: a
 * local model's "\n\n" before its tool calls comes back in the history), `image_url` parts as image blocks. Audio
 * and file parts have no messages form here and are left out.
 */
function blocksOfContent(content: unknown): Block[] {
  if (typeof content === "string") return hasText(content) ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).flatMap((part): Block[] => {
    if (part.type === "text" && hasText(part.text)) return [{ type: "text", text: part.text }];
    const image = part.image_url;
    const url = typeof image === "string" ? image : isRecord(image) && typeof image.url === "string" ? image.url : undefined;
    return part.type === "image_url" && url ? [{ type: "image", source: imageSource(url) }] : [];
  });
}

/** The text of chat content, whatever its shape (system messages, Qwen Code's tool messages as a list of text parts). */
export const textOfContent = (content: unknown): string =>
  blocksOfContent(content)
    .map((block) => (block.type === "text" ? (block.text as string) : ""))
    .join("");

/** A tool message as a `tool_result`: text alone as a string; with images, as blocks (Anthropic takes images in results). */
function toolResult(message: Extract<HubMessage, { role: "tool" }>): Block {
  const blocks = blocksOfContent(message.content);
  const result: Block = { type: "tool_result", tool_use_id: requestToolUseId(message.tool_call_id) };
  if (blocks.some((block) => block.type !== "text")) result.content = blocks;
  else if (blocks.length) result.content = blocks.map((block) => block.text as string).join("");
  return result;
}

/**
 * An assistant message as blocks: its text, then each tool call as a `tool_use` with its arguments parsed.
 * `reasoning_content`/`reasoning` are dropped: an upstream that speaks messages natively must never see
 * reasoning that it did not sign.
 */
function assistantBlocks(message: Extract<HubMessage, { role: "assistant" }>): Block[] {
  const blocks = blocksOfContent(message.content);
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!call?.function?.name) continue;
    blocks.push({ type: "tool_use", id: requestToolUseId(call.id), name: call.function.name, input: readToolArguments(call.function.arguments).object });
  }
  return blocks;
}

/**
 * Chat messages as messages' `system` and turns. System and developer messages, wherever they are, join the
 * `system` text. Consecutive messages that land on the same role become one turn, so the tool messages that
 * answer one assistant message become ONE user message of `tool_result` blocks (Anthropic wants every result of
 * a call in the very next message), followed by any user text that came after them. A message with nothing
 * left (an empty assistant message) is skipped.
 */
export function conversationFromHub(messages: readonly HubMessage[]): { system: string[]; turns: MessagesTurn[] } {
  const system: string[] = [];
  const turns: MessagesTurn[] = [];
  const add = (role: MessagesTurn["role"], content: Block[]) => {
    if (!content.length) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (message.role === "system" || message.role === "developer") {
      const text = textOfContent(message.content);
      if (text) system.push(text);
    } else if (message.role === "assistant") add("assistant", assistantBlocks(message));
    else if (message.role === "tool") add("user", [toolResult(message)]);
    else if (message.role === "user") add("user", blocksOfContent(message.content));
  }
  return { system, turns };
}
