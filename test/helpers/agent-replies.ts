import { encodeEvents } from "../../src/sse/sse.js";
import { scriptJson, scriptStream } from "./chat-script.js";
import { messagesSse, type ScriptedReply } from "./fake-upstream.js";

/** What the model does next, whatever format it is asked in. */
export type Move =
  | { kind: "text"; text: string }
  | { kind: "call"; id: string; name: string; args: Record<string, unknown>; namespace?: string; custom?: boolean };

/** Tokens the reply reports: the prompt's size is what makes a tool compact. */
export interface MoveUsage {
  input: number;
  output: number;
}

/** A messages reply for a move, whole or as Anthropic's event stream. */
function messagesReply(move: Move, stream: boolean, usage: MoveUsage): ScriptedReply {
  const block = move.kind === "text" ? { type: "text", text: move.text } : { type: "tool_use", id: move.id, name: move.name, input: move.args };
  const stop = move.kind === "text" ? "end_turn" : "tool_use";
  const counts = { input_tokens: usage.input, output_tokens: usage.output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const message = { id: "msg_agent", type: "message", role: "assistant", model: "agent-model", content: [block], stop_reason: stop, stop_sequence: null, usage: counts };
  if (!stream) return { json: message };
  const delta = move.kind === "text" ? { type: "text_delta", text: move.text } : { type: "input_json_delta", partial_json: JSON.stringify(move.args) };
  const start = move.kind === "text" ? { type: "text", text: "" } : { ...block, input: {} };
  const events = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null } },
    { type: "content_block_start", index: 0, content_block: start },
    { type: "content_block_delta", index: 0, delta },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } },
    { type: "message_stop" },
  ];
  return { chunks: [messagesSse(events)] };
}

/** A Responses reply: the item as OpenAI sends it (a custom tool's call carries `input`, a namespaced one its namespace). */
function responsesReply(move: Move, stream: boolean, usage: MoveUsage): ScriptedReply {
  const item =
    move.kind === "text"
      ? { id: "msg_agent", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: move.text, annotations: [] }] }
      : move.custom
        ? { id: "ctc_agent", type: "custom_tool_call", status: "completed", call_id: move.id, name: move.name, ...(move.namespace ? { namespace: move.namespace } : {}), input: String(move.args.input) }
        : { id: "fc_agent", type: "function_call", status: "completed", call_id: move.id, name: move.name, ...(move.namespace ? { namespace: move.namespace } : {}), arguments: JSON.stringify(move.args) };
  const counts = { input_tokens: usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output };
  const response = { id: "resp_agent", object: "response", created_at: 1700000000, status: "completed", model: "agent-model", output: [item], usage: counts };
  if (!stream) return { json: response };
  const events = [
    { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } },
    { type: "response.output_item.added", output_index: 0, item },
    ...(move.kind === "text" ? [{ type: "response.output_text.delta", output_index: 0, content_index: 0, item_id: "msg_agent", delta: move.text }] : []),
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response },
  ];
  return { chunks: [encodeEvents(events.map((data, n) => ({ event: data.type, data: { ...data, sequence_number: n } })))] };
}

/** A Gemini reply: one candidate holding the text or the function call. */
function geminiReply(move: Move, stream: boolean, usage: MoveUsage): ScriptedReply {
  const part = move.kind === "text" ? { text: move.text } : { functionCall: { name: move.name, args: move.args } };
  const reply = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
    modelVersion: "agent-model",
  };
  return stream ? { chunks: [encodeEvents([{ data: reply }])] } : { json: reply };
}

/** The move in the format the request came in, streamed when it asked for a stream; a chat reply carries `reasoning` as `reasoning_content`. */
export function replyInFormat(format: "chat" | "messages" | "responses" | "gemini", move: Move, stream: boolean, usage: MoveUsage, reasoning?: string): ScriptedReply {
  if (format === "messages") return messagesReply(move, stream, usage);
  if (format === "responses") return responsesReply(move, stream, usage);
  if (format === "gemini") return geminiReply(move, stream, usage);
  const counts = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
  const script = { reasoning, usage: counts, ...(move.kind === "text" ? { text: move.text } : { toolCalls: [{ id: move.id, name: move.name, args: move.args }] }) };
  return stream ? scriptStream(script) : scriptJson(script);
}
