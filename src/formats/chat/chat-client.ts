import type { HubChunk, HubReply, HubRequest } from "../../translate/hub.js";
import type { ClientEvent, ClientSide, HubStreamItem, HubToClientStream, ReplyHints, TranslateContext } from "../../translate/types.js";
import { chatFamily } from "./family.js";


/**
 * Chat clients (Qwen Code, Aider, openai SDK scripts) on an upstream that speaks another format: their request is
 * already the hub's language, so only the model changes on the way up, and on the way down chunks are relabelled
 * with the model they asked for and the stream ends with `data: [DONE]`. Usage follows OpenAI's stream grammar
 * (SPEC 10 rule 3): only when `stream_options.include_usage` asked for it, as one chunk of its own with no choices
 * after the finish chunk, every other chunk saying `"usage": null`. Other formats report usage with their last
 * event, so the hub's finish chunk carries it; the last usage the stream reported goes out when it ends.
 */
/** What a chat client's reply side is told: whether it asked for usage (`stream_options.include_usage`). */
export interface ChatHints extends ReplyHints {
  includeUsage: boolean;
}

export const chatClient: ClientSide<ChatHints> = {
  toHub(body, ctx) {
    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return { request: { ...(body as HubRequest), model: ctx.upstreamModel }, hints: { includeUsage } };
  },
  replyFromHub: (reply: HubReply, _hints, ctx) => ({ ...reply, object: "chat.completion", model: ctx.clientModel }),
  streamFromHub(hints: ChatHints, ctx: TranslateContext): HubToClientStream {
    let done = false;
    let last: HubChunk | undefined;
    let usage: HubChunk["usage"];
    const relabel = (chunk: HubChunk): ClientEvent[] => {
      const { usage: reported, ...rest } = chunk;
      usage = reported ?? usage;
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return [];
      last = chunk;
      return [{ data: { ...rest, object: "chat.completion.chunk", model: ctx.clientModel, ...(hints.includeUsage ? { usage: null } : {}) } }];
    };
    const usageChunk = (): ClientEvent[] =>
      hints.includeUsage && usage && last
        ? [{ data: { id: last.id, object: "chat.completion.chunk", created: last.created, model: ctx.clientModel, choices: [], usage } }]
        : [];
    return {
      start: () => [],
      push(item: HubStreamItem) {
        if (done) return [];
        if (item.type === "error") {
          done = true;
          return [chatFamily.errors.event(item.error)];
        }
        return relabel(item.chunk);
      },
      finish() {
        if (done) return [];
        done = true;
        return [...usageChunk(), { data: "[DONE]", raw: true }];
      },
      fail(error) {
        if (done) return [];
        done = true;
        return [chatFamily.errors.event(error)];
      },
      keepAlive: () => [],
    };
  },
};
