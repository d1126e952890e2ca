import { encodeEvent } from "../../sse/sse.js";
import { echoId, estimateTokens, objectAt, schemaOfFormat, streamPieces, type EchoTurn } from "../echo-turn.js";
import type { FormatEcho } from "../format-types.js";

/** Anthropic Messages replies of the echo upstream. */

const sse = (data: unknown, event?: string) => encodeEvent({ event, data });

export function message(turn: EchoTurn) {
  return {
    id: echoId("msg_echo"),
    type: "message",
    role: "assistant",
    model: turn.model,
    content: [{ type: "text", text: turn.text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: turn.inputTokens, output_tokens: estimateTokens(turn.text), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

export function messageEvents(turn: EchoTurn): string[] {
  const full = message(turn);
  const start = { ...full, content: [], stop_reason: null, usage: { ...full.usage, output_tokens: 1 } };
  return [
    sse({ type: "message_start", message: start }, "message_start"),
    sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
    sse({ type: "ping" }, "ping"),
    ...streamPieces(turn.text).map((piece) =>
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } }, "content_block_delta"),
    ),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse(
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: estimateTokens(turn.text) } },
      "message_delta",
    ),
    sse({ type: "message_stop" }, "message_stop"),
  ];
}

/** How the echo upstream answers a Messages call (structured output asked in `output_config.format`). */
export const messagesEcho: FormatEcho = {
  // `output_format` is the structured-outputs beta's name for what is now `output_config.format`.
  requestedSchema(body) {
    const format = objectAt(objectAt(body, "output_config"), "format") ?? objectAt(body, "output_format");
    return schemaOfFormat(format, format?.schema);
  },
  answer: (turn, { stream }) => (stream ? { events: messageEvents(turn) } : { json: message(turn) }),
};
