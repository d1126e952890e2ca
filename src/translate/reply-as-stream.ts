import type { HubReply } from "./hub.js";
import type { HubStreamItem } from "./types.js";

/**
 * A whole chat reply as the stream that would have carried it: one chunk with everything, the usage in it. For an
 * upstream that answers a stream request with one JSON body (some local servers ignore `stream`): the client still
 * gets the stream it asked for.
 */
export function replyAsStream(reply: HubReply): HubStreamItem[] {
  const choices = (Array.isArray(reply.choices) ? reply.choices : []).map((choice) => ({
    index: choice.index ?? 0,
    delta: {
      role: "assistant" as const,
      content: choice.message?.content ?? null,
      ...(choice.message?.reasoning_content ? { reasoning_content: choice.message.reasoning_content } : {}),
      ...(choice.message?.reasoning ? { reasoning: choice.message.reasoning } : {}),
      ...(choice.message?.tool_calls ? { tool_calls: choice.message.tool_calls.map((call, index) => ({ ...call, index })) } : {}),
    },
    finish_reason: choice.finish_reason,
  }));
  return [{ type: "chunk", chunk: { id: reply.id, model: reply.model, choices, ...(reply.usage ? { usage: reply.usage } : {}) } }];
}
