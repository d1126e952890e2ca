import { isRecord } from "../../parse-json.js";
import type { HubReply, HubToolCall, Json } from "../../translate/hub.js";
import type { TranslateContext } from "../../translate/types.js";
import { finishReasonOf } from "./stop-reasons.js";
import { hubUsageOf } from "./usage.js";
import { blocksOf, textOf } from "./wire.js";

/**
 * A messages reply as a chat reply (research C1, "Response"): text blocks joined into `content`, tool_use blocks
 * as `tool_calls` with their input as JSON text, thinking as `reasoning_content`, the stop reason and usage in
 * chat's terms, the model the client asked for.
 */
export function messagesReplyToHub(reply: Json, ctx: TranslateContext): HubReply {
  const blocks = blocksOf(reply.content);
  const toolCalls: HubToolCall[] = blocks
    .filter((block) => block.type === "tool_use" && typeof block.name === "string")
    .map((block) => ({ id: String(block.id ?? ctx.ids("call_")), type: "function", function: { name: block.name as string, arguments: JSON.stringify(block.input ?? {}) } }));
  const text = blocks.map(textOf).join("");
  const thinking = blocks.map((block) => (block.type === "thinking" && typeof block.thinking === "string" ? block.thinking : "")).join("");
  return {
    id: `chatcmpl-${typeof reply.id === "string" ? reply.id : ctx.ids("msg_")}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: ctx.clientModel,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text || (toolCalls.length ? null : ""), ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(thinking ? { reasoning_content: thinking } : {}) },
        finish_reason: finishReasonOf(reply.stop_reason, toolCalls.length > 0),
      },
    ],
    usage: hubUsageOf(isRecord(reply.usage) ? reply.usage : {}),
  };
}
