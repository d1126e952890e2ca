import { encodeEvent } from "../../sse/sse.js";
import { echoId, estimateTokens, objectAt, schemaOfFormat, streamPieces, unixNow, type EchoTurn } from "../echo-turn.js";
import type { FormatEcho } from "../format-types.js";

/** OpenAI Responses replies of the echo upstream. */

export function response(turn: EchoTurn, status: "completed" | "in_progress" = "completed") {
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
    output: done
      ? [{ type: "message", id: echoId("msg_echo"), status: "completed", role: "assistant", content: [{ type: "output_text", text: turn.text, annotations: [] }] }]
      : [],
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
export function responseEvents(turn: EchoTurn): string[] {
  const final = response(turn);
  const item = final.output[0]!;
  const created = { ...response(turn, "in_progress"), id: final.id, created_at: final.created_at };
  let sequence = 0;
  const event = (type: string, data: object) => encodeEvent({ event: type, data: { type, sequence_number: sequence++, ...data } });
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
  answer: (turn, { stream }) => (stream ? { events: responseEvents(turn) } : { json: response(turn) }),
};
