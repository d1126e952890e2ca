import type { MessagesHints } from "./request-to-hub.js";
import type { HubReply, Json } from "../../translate/hub.js";
import { readHubReply } from "../../translate/hub-reply.js";
import { readToolArguments } from "../../translate/tool-arguments.js";
import type { TranslateContext } from "../../translate/types.js";
import { stopReasonOf } from "./stop-reasons.js";
import { clientTool } from "../../translate/tool-names.js";
import { toolUseId } from "./tool-ids.js";
import { messagesUsageOf } from "./usage.js";

/**
 * A whole chat reply as a messages reply: a `msg_` id, the client's model, the content in Anthropic's order
 * (thinking with a gateway signature, text, `tool_use` blocks with their `input` by `readToolArguments`), no empty
 * text block (Claude Code keeps it and every later request is a 400: research table E row 7), the stop reason and
 * the usage. A reply that is reasoning alone has that reasoning as its text too, as its stream has.
 */
export function messagesReplyFromHub(reply: HubReply, hints: MessagesHints, ctx: TranslateContext): Json {
  const parts = readHubReply(reply);
  const content: Json[] = [];
  if (parts.reasoning) content.push({ type: "thinking", thinking: parts.reasoning.text, signature: ctx.seal.sign(parts.reasoning.text, parts.reasoning.field) });
  // White space alone is no text block: Anthropic refuses a blank one when Claude Code sends it back.
  if (parts.answer.trim()) content.push({ type: "text", text: parts.answer });
  for (const call of parts.toolCalls) {
    content.push({ type: "tool_use", id: toolUseId(call.id, ctx.ids), name: clientTool(hints.toolNames, call.name).name, input: readToolArguments(call.arguments).object });
  }
  return {
    id: ctx.ids("msg_"),
    type: "message",
    role: "assistant",
    model: ctx.clientModel,
    content,
    stop_reason: stopReasonOf(parts.finishReason, parts.toolCalls.length > 0),
    stop_sequence: null,
    usage: messagesUsageOf(parts.usage, hints.inputTokens ?? 0),
  };
}
