import type { GeminiHints } from "./gemini-request.js";
import type { HubReply, Json } from "../../translate/hub.js";
import { readHubReply } from "../../translate/hub-reply.js";
import type { TranslateContext } from "../../translate/types.js";
import { createCallIds, finishReasonOf, functionCallPart, responseBody, unwrapJsonText, usageMetadataOf } from "./gemini-response.js";

/**
 * A whole chat reply as a `generateContent` reply: thought parts first (only when the client asked for thoughts),
 * then the text, then one `functionCall` part per call, each with an id of its own, the first with the reasoning sealed
 * as its `thoughtSignature`.
 */
export function geminiReplyFromHub(reply: HubReply, hints: GeminiHints, ctx: TranslateContext): Json {
  const { reasoning, text, answer, toolCalls, finishReason, usage } = readHubReply(reply);
  const parts: Json[] = [];
  // Reasoning that stands in for the answer is not repeated as a thought.
  if (hints.includeThoughts && reasoning && answer === text) parts.push({ text: reasoning.text, thought: true });
  const visible = hints.jsonText ? unwrapJsonText(answer) : answer;
  if (visible) parts.push({ text: visible });
  const callId = createCallIds(ctx.ids);
  const signature = reasoning ? ctx.seal.seal(reasoning.text, reasoning.field) : undefined;
  toolCalls.forEach((call, n) => parts.push(functionCallPart({ ...call, id: callId(call.id) }, hints, n === 0 ? signature : undefined)));
  return responseBody(parts, ctx, ctx.ids(""), {
    finishReason: finishReasonOf(finishReason, toolCalls.length > 0),
    usageMetadata: usageMetadataOf(usage, hints),
  });
}
