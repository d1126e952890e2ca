/**
 * Chat's `finish_reason` and messages' `stop_reason`, both ways (SPEC 10 rule 2). A reply that holds a tool call
 * stops for `tool_use` / `tool_calls`, whatever the other side said: Qwen, GLM and Gemini behind vLLM say `stop`
 * next to their calls, and an agent that reads `end_turn` stops working or loops (research table E row 6). Except a
 * reply cut by the output limit: it stops for `max_tokens` / `length`, calls or not, so that the client knows the
 * reply is not whole.
 */

const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: "end_turn",
  length: "max_tokens",
  content_filter: "refusal",
};

const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
};

/**
 * A chat finish reason as a messages stop reason. `tool_calls` without a usable call is `end_turn`: a `tool_use`
 * stop with no tool block stalls Claude Code waiting for a call that never came.
 */
export function stopReasonOf(finish: string | null | undefined, hasToolUse: boolean): string {
  if (hasToolUse && finish !== "length") return "tool_use";
  return (finish && STOP_REASONS[finish]) || "end_turn";
}

/**
 * A messages stop reason as a chat finish reason; a reply with a `tool_use` block is `tool_calls`, and a
 * `tool_use` stop without one is `stop` (a chat client would wait for calls that are not there).
 */
export function finishReasonOf(stop: unknown, hasToolUse: boolean): string {
  const finish = (typeof stop === "string" && FINISH_REASONS[stop]) || "stop";
  return hasToolUse && finish !== "length" ? "tool_calls" : finish;
}
