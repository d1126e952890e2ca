import type { HubChunk, HubReply, HubRequest } from "../hub.js";
import type { ClientEvent, ClientSide, ErrorFields, HubStreamItem, HubToClientStream, ReplyHints, TranslateContext } from "../types.js";

/** A chat error event: the family's `{"error": {...}}` envelope as a data-only event. */
const errorEvent = ({ message, type, param, code }: ErrorFields): ClientEvent => ({ data: { error: { message, type, param, code } } });

/**
 * Chat clients (Qwen Code, Aider, openai SDK scripts) on an upstream that speaks another format: their request is
 * already the hub's language, so only the model changes on the way up, and on the way down chunks are relabelled
 * with the model they asked for, usage is kept only when `stream_options.include_usage` asked for it, and the stream
 * ends with `data: [DONE]`.
 */
export const chatClient: ClientSide = {
  format: "chat",
  toHub(body, ctx) {
    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return { request: { ...(body as HubRequest), model: ctx.upstreamModel }, hints: { includeUsage } };
  },
  replyFromHub: (reply: HubReply, _hints, ctx) => ({ ...reply, object: "chat.completion", model: ctx.clientModel }),
  streamFromHub(hints: ReplyHints, ctx: TranslateContext): HubToClientStream {
    let done = false;
    const relabel = (chunk: HubChunk): ClientEvent[] => {
      const hasChoices = Array.isArray(chunk.choices) && chunk.choices.length > 0;
      if (!hasChoices && !(hints.includeUsage && chunk.usage)) return [];
      const { usage, ...rest } = chunk;
      return [{ data: { ...rest, object: "chat.completion.chunk", model: ctx.clientModel, ...(hints.includeUsage && usage ? { usage } : {}) } }];
    };
    return {
      start: () => [],
      push(item: HubStreamItem) {
        if (done) return [];
        if (item.type === "error") {
          done = true;
          return [errorEvent(item.error)];
        }
        return relabel(item.chunk);
      },
      finish() {
        if (done) return [];
        done = true;
        return [{ data: "[DONE]", raw: true }];
      },
      fail(error) {
        if (done) return [];
        done = true;
        return [errorEvent(error)];
      },
      keepAlive: () => [],
    };
  },
};
