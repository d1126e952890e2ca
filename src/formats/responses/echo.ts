import { encodeEvent } from "../../sse/sse.js";
import { echoId, estimateTokens, objectAt, schemaOfFormat, streamPieces, unixNow, type EchoTurn } from "../echo-turn.js";
import type { Json } from "../../translate/hub.js";
import type { FormatEcho } from "../format-types.js";
import { compactedResponse, compactionAsked, userMessages } from "./compaction.js";

/** OpenAI Responses replies of the echo upstream. */

/** The output of a finished echo reply: its text as one message. */
const messageItem = (turn: EchoTurn): Json => ({
  type: "message",
  id: echoId("msg_echo"),
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: turn.text, annotations: [] }],
});

/**
 * A compaction's one item, as OpenAI answers Codex's compaction (`/v1/responses/compact`, or an input ending with a
 * `compaction_trigger`): the echo is its "summary", in an `encrypted_content` of the echo's own that only it would
 * read (base64). Sent back later, it reaches the echo as it came, which reads only the last user message.
 */
const compactionItem = (turn: EchoTurn): Json => ({ id: echoId("cmp_echo"), type: "compaction", encrypted_content: Buffer.from(turn.text).toString("base64") });

export function response(turn: EchoTurn, status: "completed" | "in_progress" = "completed", item: Json = messageItem(turn)) {
  const outputTokens = estimateTokens(turn.text);
  const done = status === "completed";
  return {
    id: echoId("resp_echo"),
    object: "response",
    created_at: unixNow(),
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: turn.model,
    output: done ? [item] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: 1,
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    usage: done
      ? {
          input_tokens: turn.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: turn.inputTokens + outputTokens,
        }
      : null,
  };
}

/** The Responses API event sequence, each event named and numbered as the OpenAI SDK expects. */
export function responseEvents(turn: EchoTurn, compaction = false): string[] {
  const final = response(turn, "completed", compaction ? compactionItem(turn) : messageItem(turn));
  const item = final.output[0]!;
  const created = { ...response(turn, "in_progress"), id: final.id, created_at: final.created_at };
  let sequence = 0;
  const event = (type: string, data: object) => encodeEvent({ event: type, data: { type, sequence_number: sequence++, ...data } });
  if (compaction) {
    // A compaction streams no text: its item is added and done at once, as the API does (Codex keeps it from `done`).
    return [
      event("response.created", { response: created }),
      event("response.in_progress", { response: created }),
      event("response.output_item.added", { output_index: 0, item }),
      event("response.output_item.done", { output_index: 0, item }),
      event("response.completed", { response: final }),
    ];
  }
  const part = { type: "output_text", text: "", annotations: [] };
  return [
    event("response.created", { response: created }),
    event("response.in_progress", { response: created }),
    event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
    event("response.content_part.added", { item_id: item.id, output_index: 0, content_index: 0, part }),
    ...streamPieces(turn.text).map((delta) =>
      event("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta, logprobs: [] }),
    ),
    event("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text: turn.text, logprobs: [] }),
    event("response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text: turn.text } }),
    event("response.output_item.done", { output_index: 0, item }),
    event("response.completed", { response: final }),
  ];
}

/** How the echo upstream answers a Responses call (structured output asked in `text.format`). */
export const responsesEcho: FormatEcho = {
  requestedSchema(body) {
    const format = objectAt(objectAt(body, "text"), "format");
    return schemaOfFormat(format, format?.schema);
  },
  answer(turn, { body, rest, stream }) {
    const compaction = compactionAsked(body, rest);
    if (compaction === "endpoint") {
      const { usage } = response(turn);
      return { json: compactedResponse(echoId("resp_echo"), unixNow(), userMessages(body.input), compactionItem(turn), usage as Json) };
    }
    if (stream) return { events: responseEvents(turn, compaction === "trigger") };
    return { json: response(turn, "completed", compaction === "trigger" ? compactionItem(turn) : messageItem(turn)) };
  },
};
