import type { Json } from "./hub.js";
import type { ReasoningSeal } from "./types.js";

/** The seal's prefix: bodies without it hold nothing of the gateway's, and are not parsed. */
const MARK = Buffer.from('"gw1.');

type Block = { type?: unknown; thinking?: unknown; signature?: unknown };
type Item = { type?: unknown; encrypted_content?: unknown; content?: unknown };

/**
 * A request for an upstream that serves its format natively, without the reasoning the gateway made on a translated
 * route (SPEC 10 rule 4): a Claude Code session that moved from a chat-only upstream back to Anthropic must not send
 * Anthropic a thinking block signed by the gateway (it answers 400 `Invalid signature in thinking block`), nor a
 * Responses upstream an `encrypted_content` it cannot read. Undefined when there is nothing to remove: the bytes go
 * as they came.
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
  const ours = (block: Block) =>
    block.type === "thinking" && typeof block.thinking === "string" && typeof block.signature === "string" && seal.verify(block.thinking, block.signature) !== undefined;
  if (Array.isArray(body.messages)) {
    body.messages = (body.messages as { content?: unknown }[]).map((message) => {
      if (!Array.isArray(message.content)) return message;
      const kept = (message.content as Block[]).filter((block) => !ours(block));
      if (kept.length === message.content.length) return message;
      removed = true;
      return { ...message, content: kept };
    });
  }
  if (Array.isArray(body.input)) {
    const kept = (body.input as Item[]).filter((item) => !(item.type === "reasoning" && typeof item.encrypted_content === "string" && seal.open(item.encrypted_content)));
    if (kept.length !== body.input.length) {
      removed = true;
      body.input = kept;
    }
  }
  return removed ? body : undefined;
}
