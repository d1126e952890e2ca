import { randomUUID } from "node:crypto";
import { estimateTokens, streamPieces } from "./echo-text.js";
import { encodeEvent } from "../sse/sse.js";

/** What every echo reply is built from. */
export interface EchoTurn {
  model: string;
  text: string;
  inputTokens: number;
}

/** Models the echo upstream lists. */
export const ECHO_MODELS = ["echo-1", "echo-mini"] as const;

const id = (prefix: string) => `${prefix}${randomUUID().replaceAll("-", "").slice(0, 24)}`;
const now = () => Math.floor(Date.now() / 1000);
const sse = (data: unknown, event?: string) => encodeEvent({ event, data });

export function chatCompletion(turn: EchoTurn) {
  const outputTokens = estimateTokens(turn.text);
  return {
    id: id("chatcmpl-echo"),
    object: "chat.completion",
    created: now(),
    model: turn.model,
    choices: [{ index: 0, message: { role: "assistant", content: turn.text, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: turn.inputTokens, completion_tokens: outputTokens, total_tokens: turn.inputTokens + outputTokens },
  };
}

/** Chat-completions stream; the usage chunk only when `stream_options.include_usage` asked for it, as upstreams do. */
export function chatCompletionEvents(turn: EchoTurn, includeUsage: boolean): string[] {
  const base = { id: id("chatcmpl-echo"), object: "chat.completion.chunk", created: now(), model: turn.model };
  const chunk = (delta: object, finish: string | null) => sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const outputTokens = estimateTokens(turn.text);
  return [
    chunk({ role: "assistant", content: "" }, null),
    ...streamPieces(turn.text).map((piece) => chunk({ content: piece }, null)),
    chunk({}, "stop"),
    ...(includeUsage
      ? [sse({ ...base, choices: [], usage: { prompt_tokens: turn.inputTokens, completion_tokens: outputTokens, total_tokens: turn.inputTokens + outputTokens } })]
      : []),
    "data: [DONE]\n\n",
  ];
}

export function message(turn: EchoTurn) {
  return {
    id: id("msg_echo"),
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

export function response(turn: EchoTurn, status: "completed" | "in_progress" = "completed") {
  const outputTokens = estimateTokens(turn.text);
  const done = status === "completed";
  return {
    id: id("resp_echo"),
    object: "response",
    created_at: now(),
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: turn.model,
    output: done
      ? [{ type: "message", id: id("msg_echo"), status: "completed", role: "assistant", content: [{ type: "output_text", text: turn.text, annotations: [] }] }]
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
  const event = (type: string, data: object) => sse({ type, sequence_number: sequence++, ...data }, type);
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

export function chatModelList() {
  return { object: "list", data: ECHO_MODELS.map((model) => ({ id: model, object: "model", created: 1735689600, owned_by: "gateway-echo" })) };
}

export function messagesModelList() {
  const data = ECHO_MODELS.map((model) => ({ type: "model", id: model, display_name: `Echo (${model})`, created_at: "2025-01-01T00:00:00Z" }));
  return { data, has_more: false, first_id: data[0]!.id, last_id: data[data.length - 1]!.id };
}
