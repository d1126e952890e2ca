import type { HubReply, Json } from "../../translate/hub.js";
import { readHubReply } from "../../translate/hub-reply.js";
import type { ReplyHints, TranslateContext } from "../../translate/types.js";
import { callItemPrefix, messageItem, reasoningItem, responseObject, responseUsage, statusOf, toolCallItem } from "./output-items.js";
import type { ResponsesHints } from "./to-hub.js";
import { clientTool } from "../../translate/tool-names.js";

/**
 * A whole chat reply as a Responses response: a reasoning item (sealed, so Codex can send it back), the message
 * (never an empty one), then one item per tool call, each a `function_call` or, for a freeform tool, a
 * `custom_tool_call`, named and namespaced as the client declared the tool. A reply that is reasoning alone has that
 * reasoning as its message too, as its stream has.
 */
export function responsesReply(reply: HubReply, hints: ReplyHints, ctx: TranslateContext): Json {
  const id = ctx.ids("resp_");
  const parts = readHubReply(reply);
  const output: Json[] = [];
  if (parts.reasoning) output.push(reasoningItem(ctx.ids("rs_"), parts.reasoning.text, parts.reasoning.field, ctx.seal));
  if (parts.answer) output.push(messageItem(ctx.ids("msg_"), "completed", parts.answer));
  for (const call of parts.toolCalls) {
    const tool = clientTool(hints.toolNames, call.name);
    output.push(toolCallItem(ctx.ids(callItemPrefix(tool)), call.id ?? ctx.ids("call_"), tool, call.arguments, "completed"));
  }
  const { status, incomplete_details } = statusOf(parts.finishReason, parts.toolCalls.length > 0);
  return responseObject(
    {
      id,
      createdAt: Math.floor(Date.now() / 1000),
      model: ctx.clientModel,
      status,
      output,
      usage: responseUsage(parts.usage),
      incompleteDetails: incomplete_details,
    },
    (hints as ResponsesHints).echo,
  );
}
