import type { GeminiHints } from "./gemini-request.js";
import type { HubUsage, Json } from "../../translate/hub.js";
import { usageParts } from "../../translate/hub-usage.js";
import { readToolArguments } from "../../translate/tool-arguments.js";
import type { IdSource, TranslateContext } from "../../translate/types.js";
import { clientTool } from "../../translate/tool-names.js";

/** The pieces a whole reply and a stream both build their `GenerateContentResponse` bodies from. */

/** Chat finish reasons in Gemini's words; Gemini has no tool stop reason, a reply with calls just stops. */
const FINISH_REASONS: Readonly<Record<string, string>> = { stop: "STOP", length: "MAX_TOKENS", content_filter: "SAFETY" };

/**
 * The `finishReason` to send: `STOP` whenever a call was sent, whatever the upstream said (research table E row
 * 6), but `MAX_TOKENS` for a reply cut by the output limit, calls or not; `STOP` also when the upstream said nothing,
 * since Gemini CLI rejects a stream that ends without one.
 */
export const finishReasonOf = (reason: string | null, calledTools: boolean): string => (calledTools && reason !== "length" ? "STOP" : (FINISH_REASONS[reason ?? ""] ?? "STOP"));

/**
 * Chat usage as `usageMetadata`: Gemini counts thoughts apart from the answer, so `candidatesTokenCount` is the
 * output without reasoning. Without any usage from the upstream, the request's estimate stands in for the prompt
 * (Gemini CLI decides when to compress the history from `promptTokenCount`; 0 would mean never).
 */
export function usageMetadataOf(usage: HubUsage | undefined, hints: GeminiHints): Json {
  if (!usage) {
    const prompt = hints.inputTokens ?? 0;
    return { promptTokenCount: prompt, candidatesTokenCount: 0, totalTokenCount: prompt };
  }
  const { prompt, output, reasoning, cacheRead } = usageParts(usage);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, output - reasoning),
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
    ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
    totalTokenCount: prompt + output,
  };
}

const WHOLE_FENCE = /^```[\w-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?```$/;
const FENCES = /```[\w-]*[ \t]*\r?\n([\s\S]*?)```/g;

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/**
 * JSON the client asked for, out of the Markdown fence chat models like to wrap it in (Gemini CLI's `generateJson`
 * fails on it and its router asks again for ever: research table E row 20). A text that is one fence becomes its
 * inside; else the first fenced block that parses; else the text as it came.
 */
export function unwrapJsonText(text: string): string {
  const trimmed = text.trim();
  const whole = WHOLE_FENCE.exec(trimmed);
  if (whole) return whole[1]!.trim();
  for (const match of trimmed.matchAll(FENCES)) {
    const inside = match[1]!.trim();
    if (parses(inside)) return inside;
  }
  return text;
}

/**
 * Ids for `functionCall` parts: the upstream's own when it has one not used yet in this reply, else a new
 * `call_` id. Gemini CLI keys each call by its id, so two calls must never share one (research table E row 22).
 */
export function createCallIds(ids: IdSource): (upstreamId: string | undefined) => string {
  const used = new Set<string>();
  return (upstreamId) => {
    let id = upstreamId ?? "";
    while (!id || used.has(id)) id = ids("call_");
    used.add(id);
    return id;
  };
}

/**
 * A complete call as a `functionCall` part: arguments as an object (`readToolArguments`), the name the client declared.
 * `thoughtSignature`, when given, is the reasoning before the call, sealed: Gemini CLI keeps a call part's signature
 * in its history and sends it back (Gemini 3 requires it), so the reasoning returns to an upstream that wants it
 * passed back (DeepSeek's thinking mode answers 400 without it: research table E row 9).
 */
export const functionCallPart = (call: { id: string; name: string; arguments: string }, hints: GeminiHints, thoughtSignature?: string): Json => ({
  functionCall: { id: call.id, name: clientTool(hints.toolNames, call.name).name, args: readToolArguments(call.arguments).object },
  ...(thoughtSignature ? { thoughtSignature } : {}),
});

/** How a response body ends: on the last one only. */
export interface ResponseEnd {
  finishReason: string;
  usageMetadata: Json;
}

/** A `GenerateContentResponse`: one candidate with `parts`, naming the model the client asked for. */
export function responseBody(parts: Json[], ctx: TranslateContext, responseId: string, end?: ResponseEnd): Json {
  return {
    candidates: [{ content: { role: "model", parts }, ...(end ? { finishReason: end.finishReason } : {}), index: 0 }],
    ...(end ? { usageMetadata: end.usageMetadata } : {}),
    modelVersion: ctx.clientModel,
    responseId,
  };
}
