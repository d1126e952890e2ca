import { COMPACTION_ITEMS, summaryText } from "./compaction-summary.js";
import type { Json } from "./hub.js";
import { SEAL_PREFIX } from "./reasoning-seal.js";
import type { ReasoningSeal } from "./types.js";

/** A JSON string that begins with the seal's prefix: a body without one holds nothing of the gateway's, and is not parsed. */
const MARK = Buffer.from(`"${SEAL_PREFIX}.`);

type Block = { type?: unknown; signature?: unknown };
type Item = { type?: unknown; encrypted_content?: unknown };
type Part = { functionCall?: unknown; thoughtSignature?: unknown };

/**
 * What Gemini CLI itself puts on a call that has no signature of Google's, and Google documents for conversations
 * that come from another model: Gemini 3 refuses a call in the current turn without a signature.
 */
const SIGNATURE_STAND_IN = "skip_thought_signature_validator";

const isThinkingOn = (thinking: unknown): boolean =>
  typeof thinking === "object" && thinking !== null && (thinking as { type?: unknown }).type !== "disabled";

/**
 * A request for an upstream that serves its format natively, without the reasoning the gateway made on a translated
 * route (SPEC 10 rule 4): a Claude Code session that moved from a chat-only upstream back to Anthropic must not send
 * Anthropic a thinking block signed by the gateway (it answers 400 `Invalid signature in thinking block`, for good:
 * research table E row 8), nor Codex a Responses upstream an `encrypted_content` it cannot read (a compaction's
 * becomes its summary), nor Gemini CLI Google a `thoughtSignature` it did not make (a call's gets Gemini CLI's own
 * stand-in instead). Every block in the gateway's format goes, the ones another install signed too (a config
 * directory made anew): the provider can check none of them. A turn left with no content goes as well (Anthropic refuses an empty one, and joins the user turns
 * around it into one). Everything else is kept as it came, in its order. Undefined when there is nothing to remove:
 * the bytes go as they came.
 */
export function stripGatewayReasoning(bytes: Buffer | undefined, seal: ReasoningSeal): Json | undefined {
  if (!bytes || !bytes.includes(MARK)) return undefined;
  let body: Json;
  try {
    body = JSON.parse(bytes.toString("utf8")) as Json;
  } catch {
    return undefined;
  }
  let removed = false;
  const ours = (block: Block | null) => block?.type === "thinking" && typeof block.signature === "string" && seal.marks(block.signature);
  if (Array.isArray(body.messages)) {
    // Whether the last assistant turn lost the thinking its tool call came with (see below).
    let loopLostThinking = false;
    body.messages = (body.messages as ({ role?: unknown; content?: unknown } | null)[]).flatMap((message) => {
      if (message?.role === "assistant") loopLostThinking = false;
      if (!Array.isArray(message?.content)) return [message];
      const kept = (message.content as (Block | null)[]).filter((block) => !ours(block));
      if (kept.length === message.content.length) return [message];
      removed = true;
      if (message.role === "assistant") loopLostThinking = kept.some((block) => block?.type === "tool_use");
      return kept.length > 0 ? [{ ...message, content: kept }] : [];
    });
    // With thinking on, Anthropic wants the assistant turn of an open tool loop to start with its thinking, and
    // answers 400 "expected thinking" without it: the rest of that loop runs without thinking (as LiteLLM does),
    // the next turn has it again.
    if (loopLostThinking && isThinkingOn(body.thinking)) delete body.thinking;
  }
  if (Array.isArray(body.input)) {
    // A compaction the gateway made on a translated route becomes its summary, as there (SPEC 11): OpenAI cannot
    // read the envelope, and would refuse every later request of the session.
    body.input = (body.input as (Item | null)[]).flatMap((item) => {
      if (typeof item?.encrypted_content !== "string" || !seal.marks(item.encrypted_content)) return [item];
      if (item.type === "reasoning") {
        removed = true;
        return [];
      }
      if (!COMPACTION_ITEMS.has(item.type)) return [item];
      removed = true;
      const text = summaryText(item as Json, seal);
      return text ? [{ type: "message", role: "user", content: [{ type: "input_text", text }] }] : [];
    });
  }
  if (Array.isArray(body.contents)) {
    for (const content of body.contents as ({ parts?: unknown } | null)[]) {
      for (const part of Array.isArray(content?.parts) ? (content.parts as (Part | null)[]) : []) {
        if (typeof part?.thoughtSignature !== "string" || !seal.marks(part.thoughtSignature)) continue;
        removed = true;
        if (part.functionCall) part.thoughtSignature = SIGNATURE_STAND_IN;
        else delete part.thoughtSignature;
      }
    }
  }
  return removed ? body : undefined;
}
