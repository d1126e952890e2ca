import type { HubReply, Json } from "../../translate/hub.js";
import { readHubReply } from "../../translate/hub-reply.js";
import type { TranslateContext } from "../../translate/types.js";
import { callItemPrefix, messageItem, reasoningItem, responseObject, responseUsage, statusOf, toolCallItem } from "./output-items.js";
import type { ResponsesHints } from "./to-hub.js";
import { compactedResponse, compactionItem } from "./compaction.js";
import { clientTool } from "../../translate/tool-names.js";

/**
 * A whole chat reply as a Responses response: a reasoning item (sealed, so Codex can send it back), the message
 * (never an empty one), then one item per tool call, each a `function_call` or, for a freeform tool, a
 * `custom_tool_call`, named and namespaced as the client declared the tool. A reply that is reasoning alone has that
 * reasoning as its message too, as its stream has.
 */
export function responsesReply(reply: HubReply, hints: ResponsesHints, ctx: TranslateContext): Json {
  const id = ctx.ids("resp_");
  const parts = readHubReply(reply);
  if (hints.compaction) return compactionReply(id, parts, hints, ctx);
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
    hints.echo,
  );
}

/**
 * A compaction's reply (SPEC 11): its one `compaction` item holds the model's summary (its reasoning when it wrote
 * nothing else), whatever else the model said or tried to call left out. The compaction endpoint answers as the API
 * does, the user messages it was given before the item; a trigger request gets a response like any other.
 */
function compactionReply(id: string, parts: ReturnType<typeof readHubReply>, hints: ResponsesHints, ctx: TranslateContext): Json {
  const createdAt = Math.floor(Date.now() / 1000);
  const item = compactionItem(ctx.ids("cmp_"), parts.answer || parts.reasoning?.text || "", ctx.seal);
  const usage = responseUsage(parts.usage);
  if (hints.compaction === "endpoint") return compactedResponse(id, createdAt, hints.userMessages ?? [], item, usage);
  const { status, incomplete_details } = statusOf(parts.finishReason, false);
  return responseObject({ id, createdAt, model: ctx.clientModel, status, output: [item], usage, incompleteDetails: incomplete_details }, hints.echo);
}
