import { contextOverflowOf } from "../../translate/context-overflow.js";
import type { HubUsage, Json, ReasoningField } from "../../translate/hub.js";
import { usageParts } from "../../translate/hub-usage.js";
import { readToolArguments } from "../../translate/tool-arguments.js";
import type { ErrorFields, ReasoningSeal } from "../../translate/types.js";
import type { ResponseEcho } from "./to-hub.js";
import type { ClientTool } from "../../translate/tool-names.js";

/**
 * The Responses output items and response object, built the same way for a whole reply and for a stream's
 * `output_item.done` / `response.completed` events, so the two always agree.
 */

/** An item's status: `in_progress` in `output_item.added`, `incomplete` for a call cut by the output limit, `completed` everywhere else. */
export type ItemStatus = "in_progress" | "completed" | "incomplete";

/** An `output_text` content part (the API always sends `annotations`). */
export const outputText = (text: string): Json => ({ type: "output_text", text, annotations: [] });

/** A reasoning item: the upstream's reasoning as its summary, sealed in `encrypted_content` so a later request can give it back. */
export const reasoningItem = (id: string, text: string, field: ReasoningField, seal: ReasoningSeal): Json => ({
  id,
  type: "reasoning",
  summary: [{ type: "summary_text", text }],
  encrypted_content: seal.seal(text, field),
});

/** An assistant message item; `text` undefined is the empty item `output_item.added` opens. */
export const messageItem = (id: string, status: ItemStatus, text?: string): Json => ({
  id,
  type: "message",
  status,
  role: "assistant",
  content: text === undefined ? [] : [outputText(text)],
});

/**
 * A freeform tool's input from the chat call's arguments: the `input` string the request asked for, else the one
 * string the object holds (a model that named the key differently, or arguments that are no object, held under
 * `INVALID_JSON`: a freeform input is text, so the text as it came is its truth), else the raw text.
 */
export function customInput(args: string): string {
  if (!args.trim()) return "";
  const value = readToolArguments(args).object;
  if (typeof value.input === "string") return value.input;
  const strings = Object.values(value).filter((entry): entry is string => typeof entry === "string");
  return strings.length === 1 && Object.keys(value).length === 1 ? strings[0]! : args;
}

/**
 * A `function_call` or `custom_tool_call` item for a call the upstream made, named as the client declared the tool.
 * A completed item's arguments follow `readToolArguments` (Codex takes a call's arguments from the `output_item.done`
 * item alone, so a repair reaches it even after the pieces were streamed as they came); an item cut by the output
 * limit (`incomplete`, as OpenAI marks one) keeps the text that came, unrepaired, and so does one still in progress.
 */
export function toolCallItem(itemId: string, callId: string, tool: ClientTool, args: string, status: ItemStatus): Json {
  const namespace = tool.namespace ? { namespace: tool.namespace } : {};
  const completed = status === "completed";
  return tool.custom
    ? { id: itemId, type: "custom_tool_call", status, call_id: callId, name: tool.name, ...namespace, input: completed ? customInput(args) : status === "incomplete" ? args : "" }
    : { id: itemId, type: "function_call", status, arguments: completed ? readToolArguments(args).json : args, call_id: callId, name: tool.name, ...namespace };
}

/** The item-id prefix of a call item: the API's `fc_` for functions, `ctc_` for custom tools. */
export const callItemPrefix = (tool: ClientTool): string => (tool.custom ? "ctc_" : "fc_");

/**
 * The response's status from chat's finish reason. `length` is incomplete for `max_output_tokens`, calls or not (the
 * reply was cut); `content_filter` is incomplete for `content_filter`, unless the reply holds a tool call, which has
 * completed whatever else the upstream said (some send `stop` with calls).
 */
export function statusOf(finishReason: string | null | undefined, hasToolCall: boolean): { status: "completed" | "incomplete"; incomplete_details: Json | null } {
  if (finishReason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (!hasToolCall && finishReason === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

/** Chat usage as Responses counts it: `input_tokens` includes cached tokens (unlike messages), `output_tokens` includes reasoning. */
export function responseUsage(usage: HubUsage | undefined): Json {
  const parts = usageParts(usage);
  return {
    input_tokens: parts.prompt,
    input_tokens_details: { cached_tokens: parts.cacheRead },
    output_tokens: parts.output,
    output_tokens_details: { reasoning_tokens: parts.reasoning },
    total_tokens: parts.prompt + parts.output,
  };
}

/** The `error` of a failed response: Codex reads `context_length_exceeded` as "compact", `rate_limit_exceeded` as "wait", the rest as "retry". */
export function responseError(error: ErrorFields): Json {
  const contextTooLong = error.code === "context_length_exceeded" || contextOverflowOf(error.status, error.message, error.code) !== undefined;
  const code = contextTooLong ? "context_length_exceeded" : error.status === 429 ? "rate_limit_exceeded" : "server_error";
  return { code, message: error.message };
}

const DEFAULT_ECHO: ResponseEcho = { parallel_tool_calls: true, tool_choice: "auto", temperature: null, top_p: null, max_output_tokens: null, reasoning: null };

/** What a response object says beyond its output. */
export interface ResponseState {
  id: string;
  createdAt: number;
  model: string;
  status: "in_progress" | "completed" | "incomplete" | "failed";
  output: Json[];
  usage: Json | null;
  error?: Json | null;
  incompleteDetails?: Json | null;
}

/** The response object, with the request's settings echoed as the API does. */
export function responseObject(state: ResponseState, echo: ResponseEcho = DEFAULT_ECHO): Json {
  return {
    id: state.id,
    object: "response",
    created_at: state.createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    instructions: null,
    max_output_tokens: echo.max_output_tokens,
    model: state.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: null,
    reasoning: echo.reasoning,
    store: false,
    temperature: echo.temperature,
    tool_choice: echo.tool_choice,
    tools: [],
    top_p: echo.top_p,
    truncation: "disabled",
    usage: state.usage,
    metadata: {},
  };
}
