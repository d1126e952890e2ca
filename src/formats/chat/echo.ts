import { encodeEvent } from "../../sse/sse.js";
import { echoId, estimateTokens, objectAt, schemaOfFormat, streamPieces, unixNow, type EchoTurn } from "../echo-turn.js";
import type { EchoCall, FormatEcho } from "../format-types.js";

/** Chat Completions replies of the echo upstream. */

export function chatCompletion(turn: EchoTurn) {
  const outputTokens = estimateTokens(turn.text);
  return {
    id: echoId("chatcmpl-echo"),
    object: "chat.completion",
    created: unixNow(),
    model: turn.model,
    choices: [{ index: 0, message: { role: "assistant", content: turn.text, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: turn.inputTokens, completion_tokens: outputTokens, total_tokens: turn.inputTokens + outputTokens },
  };
}

/** Chat-completions stream; the usage chunk only when `stream_options.include_usage` asked for it, as upstreams do. */
export function chatCompletionEvents(turn: EchoTurn, includeUsage: boolean): string[] {
  const base = { id: echoId("chatcmpl-echo"), object: "chat.completion.chunk", created: unixNow(), model: turn.model };
  const chunk = (delta: object, finish: string | null) => encodeEvent({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
  const outputTokens = estimateTokens(turn.text);
  return [
    chunk({ role: "assistant", content: "" }, null),
    ...streamPieces(turn.text).map((piece) => chunk({ content: piece }, null)),
    chunk({}, "stop"),
    ...(includeUsage
      ? [encodeEvent({ data: { ...base, choices: [], usage: { prompt_tokens: turn.inputTokens, completion_tokens: outputTokens, total_tokens: turn.inputTokens + outputTokens } } })]
      : []),
    "data: [DONE]\n\n",
  ];
}

/** How the echo upstream answers a Chat Completions call (structured output asked in `response_format`). */
export const chatEcho: FormatEcho = {
  requestedSchema(body) {
    const format = objectAt(body, "response_format");
    return schemaOfFormat(format, objectAt(format, "json_schema")?.schema);
  },
  answer(turn, { body, stream }: EchoCall) {
    if (!stream) return { json: chatCompletion(turn) };
    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return { events: chatCompletionEvents(turn, includeUsage) };
  },
};
