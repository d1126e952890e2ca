import { isRecord } from "../../parse-json.js";
import { streamErrorItem } from "../chat/chat-upstream.js";
import type { HubChunk, HubUsage } from "../../translate/hub.js";
import type { HubStreamItem, TranslateContext, UpstreamEvent, UpstreamToHubStream } from "../../translate/types.js";
import { finishReasonOf } from "./stop-reasons.js";
import { hubUsageOf } from "./usage.js";
import { type MessagesUsage } from "./wire.js";

type Delta = HubChunk["choices"][number]["delta"];

/** The usage fields that are numbers: `message_delta` may say `input_tokens: null`, which must not erase `message_start`'s. */
const countsOf = (usage: unknown): Partial<MessagesUsage> =>
  isRecord(usage) ? Object.fromEntries(Object.entries(usage).filter(([, value]) => typeof value === "number")) : {};

/**
 * Anthropic's event stream as hub chunks (research C1, Streaming): `message_start` opens the assistant turn;
 * text, thinking and `input_json_delta` pieces become chat deltas as they arrive (text or thinking already in a
 * block's start too); each `tool_use` block is a tool call whose `index` counts tool blocks only; `message_delta`
 * carries the finish reason and the usage (input as `message_start` counted it unless the delta recounts it,
 * output from the delta); `event: error` ends the stream with an error item; `ping`, signatures and
 * `content_block_stop` say nothing a chat stream has. Chunks carry `chatcmpl-` + the message id and the
 * client's model.
 */
export function messagesStreamToHub(ctx: TranslateContext): UpstreamToHubStream {
  let id: string | undefined;
  const created = Math.floor(Date.now() / 1000);
  let started: Partial<MessagesUsage> = {};
  let toolBlocks = 0;
  const toolIndex = new Map<unknown, number>();
  /** Tool blocks whose input came whole in `content_block_start`: deltas after it would repeat it (`{...}{...}`). */
  const wholeInput = new Set<unknown>();

  const chunk = (delta: Delta, finish: string | null = null, usage?: HubUsage): HubStreamItem => {
    id ??= `chatcmpl-${ctx.ids("msg_")}`;
    return { type: "chunk", chunk: { id, object: "chat.completion.chunk", created, model: ctx.clientModel, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) } };
  };

  function blockStart(index: unknown, block: Record<string, unknown>): HubStreamItem[] {
    if (block.type === "tool_use") {
      const k = toolBlocks++;
      toolIndex.set(index, k);
      const name = typeof block.name === "string" ? block.name : "";
      const callId = typeof block.id === "string" ? block.id : ctx.ids("call_");
      // Anthropic starts every block with `input: {}` and streams the input; some compatible servers put it all here
      // and send no delta (research table E row 3).
      const input = isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
      if (input) wholeInput.add(index);
      return [chunk({ tool_calls: [{ index: k, id: callId, type: "function", function: { name, arguments: input } }] })];
    }
    if (block.type === "text" && typeof block.text === "string" && block.text) return [chunk({ content: block.text })];
    if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking) return [chunk({ reasoning_content: block.thinking })];
    return [];
  }

  function blockDelta(index: unknown, delta: Record<string, unknown>): HubStreamItem[] {
    if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text) return [chunk({ content: delta.text })];
    if (delta.type === "thinking_delta" && typeof delta.thinking === "string" && delta.thinking) return [chunk({ reasoning_content: delta.thinking })];
    const k = toolIndex.get(index);
    if (delta.type !== "input_json_delta" || typeof delta.partial_json !== "string" || !delta.partial_json || k === undefined || wholeInput.has(index)) return [];
    return [chunk({ tool_calls: [{ index: k, function: { arguments: delta.partial_json } }] })];
  }

  return {
    push(event: UpstreamEvent): HubStreamItem[] {
      const { data } = event;
      switch (data.type ?? event.event) {
        case "message_start": {
          const message = isRecord(data.message) ? data.message : {};
          if (typeof message.id === "string") id ??= `chatcmpl-${message.id}`;
          started = countsOf(message.usage);
          return [chunk({ role: "assistant", content: "" })];
        }
        case "content_block_start":
          return blockStart(data.index, isRecord(data.content_block) ? data.content_block : {});
        case "content_block_delta":
          return blockDelta(data.index, isRecord(data.delta) ? data.delta : {});
        case "message_delta": {
          const delta = isRecord(data.delta) ? data.delta : {};
          return [chunk({}, finishReasonOf(delta.stop_reason, toolBlocks > 0), hubUsageOf({ ...started, ...countsOf(data.usage) }))];
        }
        case "error":
          return [streamErrorItem(data.error)];
        default:
          return [];
      }
    },
    // A stream cut before `message_delta` has no finish to report: the client side closes by its own grammar.
    finish: () => [],
  };
}
