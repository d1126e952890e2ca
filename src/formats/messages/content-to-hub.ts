import { isRecord } from "../../parse-json.js";
import type { HubContentPart, HubMessage, HubToolCall, ReasoningField } from "../../translate/hub.js";
import type { ReasoningSeal } from "../../translate/types.js";
import type { Turn } from "./system-prompt.js";
import { chatToolName } from "../../translate/tool-names.js";
import { referenceText } from "./tool-search.js";
import { type Block, blocksOf, textOf } from "./wire.js";

type AssistantMessage = Extract<HubMessage, { role: "assistant" }>;

/** What a tool message says when its images had to move to the user message after it. */
export const IMAGE_NOTE = "[image attached below]";

const textPart = (text: string): HubContentPart[] => (text ? [{ type: "text", text }] : []);

function imageUrl(source: unknown): string | undefined {
  if (!isRecord(source)) return undefined;
  if (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") return `data:${source.media_type};base64,${source.data}`;
  if (source.type === "url" && typeof source.url === "string") return source.url;
  return undefined;
}

/** A document's text; a PDF or any file source becomes a note saying it was left out (chat has no file part). */
function documentText(block: Block): string {
  const source = isRecord(block.source) ? block.source : {};
  const title = typeof block.title === "string" && block.title ? block.title : undefined;
  const body = source.type === "text" && typeof source.data === "string" ? source.data : source.type === "content" ? blocksOf(source.content).map(textOf).filter(Boolean).join("\n\n") : undefined;
  if (body !== undefined) return title ? `${title}\n\n${body}` : body;
  const what = title ?? (typeof source.media_type === "string" ? source.media_type : "file");
  return `[document left out (${what}): this model's server takes no files]`;
}

/**
 * A user block as chat content parts: text (never empty), images (base64 as a data URL, or the URL), documents as
 * text, and a tool result's `tool_reference` as `Tool loaded: NAME` (SPEC 12, tool search).
 */
function partsOf(block: Block): HubContentPart[] {
  if (block.type === "text") return textPart(textOf(block));
  if (block.type === "tool_reference") return textPart(referenceText(block));
  if (block.type === "document") return textPart(documentText(block));
  const url = block.type === "image" ? imageUrl(block.source) : undefined;
  return url ? [{ type: "image_url", image_url: { url } }] : [];
}

const isText = (part: HubContentPart): part is Extract<HubContentPart, { type: "text" }> => part.type === "text";

/**
 * A `tool_result` as a tool message: its text parts joined with a newline (a string or a block list, as Claude
 * Code's Bash and Read send them). Most chat servers take only text in a tool message (research table E row 10),
 * so its images are returned apart, to follow in a user message.
 */
function toolMessage(block: Block): { message: HubMessage; images: HubContentPart[] } {
  const parts = typeof block.content === "string" ? textPart(block.content) : blocksOf(block.content).flatMap(partsOf);
  const images = parts.filter((part) => !isText(part));
  const texts = parts.filter(isText).map((part) => part.text);
  if (images.length) texts.push(IMAGE_NOTE);
  return { message: { role: "tool", tool_call_id: String(block.tool_use_id ?? ""), content: texts.join("\n") }, images };
}

/**
 * A user turn: its tool results first, as tool messages in the order of the calls they answer (chat wants each
 * call's result right after the call), then one user message with the images of those results and the rest of
 * the turn (text next to tool results is kept: research table E row 25). Text-only content is one string.
 */
function userToHub(blocks: Block[], callOrder: readonly string[]): HubMessage[] {
  const rank = (block: Block) => {
    const at = callOrder.indexOf(String(block.tool_use_id));
    return at < 0 ? callOrder.length : at;
  };
  const tools = blocks
    .filter((block) => block.type === "tool_result")
    .sort((a, b) => rank(a) - rank(b))
    .map(toolMessage);
  const parts = [...tools.flatMap((tool) => tool.images), ...blocks.filter((block) => block.type !== "tool_result").flatMap(partsOf)];
  const out = tools.map((tool) => tool.message);
  if (parts.length) out.push({ role: "user", content: parts.every(isText) ? parts.map((part) => part.text).join("\n\n") : parts });
  return out;
}

/**
 * Reasoning the gateway made and signed, sent back: its text under the field the upstream used. Thinking blocks
 * it did not sign (Anthropic's own, forgeries) and `redacted_thinking` are dropped, never put in the content.
 */
function sealedReasoning(blocks: Block[], seal: ReasoningSeal): { field: ReasoningField; text: string } | undefined {
  let field: ReasoningField | undefined;
  let text = "";
  for (const block of blocks) {
    if (block.type !== "thinking" || typeof block.thinking !== "string" || typeof block.signature !== "string") continue;
    const verified = seal.verify(block.thinking, block.signature);
    if (!verified) continue;
    field ??= verified;
    text += block.thinking;
  }
  return field && text ? { field, text } : undefined;
}

/**
 * An assistant turn as one assistant message: texts joined (they are one contiguous answer), every `tool_use` a
 * call of this same message with `JSON.stringify(input)` (key order kept: a reordered prefix defeats the prefix
 * cache), `content: null` when there are only calls.
 */
function assistantToHub(blocks: Block[], seal: ReasoningSeal): AssistantMessage {
  const text = blocks.map(textOf).join("");
  const calls: HubToolCall[] = blocks.flatMap((block) =>
    block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string"
      ? [{ id: block.id, type: "function" as const, function: { name: chatToolName(block.name), arguments: JSON.stringify(block.input ?? {}) } }]
      : [],
  );
  const message: AssistantMessage = { role: "assistant", content: text || (calls.length ? null : "") };
  if (calls.length) message.tool_calls = calls;
  const reasoning = sealedReasoning(blocks, seal);
  if (reasoning) message[reasoning.field] = reasoning.text;
  return message;
}

/** The conversation's turns as chat messages. */
export function conversationToHub(turns: readonly Turn[], seal: ReasoningSeal): HubMessage[] {
  const out: HubMessage[] = [];
  let callOrder: string[] = [];
  for (const turn of turns) {
    if (turn.role === "assistant") {
      const message = assistantToHub(turn.blocks, seal);
      callOrder = message.tool_calls?.map((call) => call.id) ?? [];
      out.push(message);
    } else {
      out.push(...userToHub(turn.blocks, callOrder));
      callOrder = [];
    }
  }
  return out;
}
