import type { HubReply, HubUsage, ReasoningField } from "./hub.js";
import { contentText, hasUsage, isFirstChoice, reasoningOf, reasoningStandsIn } from "./hub-events.js";
import { splitThinkTags } from "./think-tags.js";
import { argumentsText, parsesAsObject } from "./tool-arguments.js";

/** A whole chat reply reduced as `hub-events.ts` reduces a stream: reasoning, text, complete tool calls, finish reason, usage. */
export interface HubReplyParts {
  reasoning: { text: string; field: ReasoningField } | undefined;
  text: string;
  /** What the client is shown as the answer: `text`, or the reasoning when it stands in (`reasoningStandsIn`). */
  answer: string;
  /** The calls, each with the upstream's id (undefined when it sent none: the client format makes one with its prefix). */
  toolCalls: { id: string | undefined; name: string; arguments: string }[];
  finishReason: string | null;
  usage: HubUsage | undefined;
}

/**
 * Reads a non-stream chat reply: its first choice alone (`isFirstChoice`). Content that opens with `<think>` gives its
 * tagged part as reasoning when the upstream gave no reasoning field. In a reply cut by the output limit, calls whose
 * arguments never completed are left out.
 */
export function readHubReply(reply: HubReply): HubReplyParts {
  const parts: HubReplyParts = { reasoning: undefined, text: "", answer: "", toolCalls: [], finishReason: null, usage: hasUsage(reply.usage) ? reply.usage : undefined };
  for (const choice of Array.isArray(reply.choices) ? reply.choices : []) {
    if (!isFirstChoice(choice)) continue;
    const message = choice?.message;
    if (message) {
      const pieces = splitThinkTags(contentText(message.content));
      const tagged = pieces.filter((piece) => piece.kind === "reasoning").map((piece) => piece.text).join("");
      const reasoning = reasoningOf(message) ?? (tagged ? { text: tagged, field: "reasoning_content" as const } : undefined);
      if (reasoning) parts.reasoning = parts.reasoning ? { ...parts.reasoning, text: parts.reasoning.text + reasoning.text } : reasoning;
      parts.text += pieces.filter((piece) => piece.kind === "text").map((piece) => piece.text).join("");
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        const name = call?.function?.name;
        if (!name) continue;
        parts.toolCalls.push({ id: call.id || undefined, name, arguments: argumentsText(call.function.arguments as string | undefined) });
      }
    }
    if (typeof choice?.finish_reason === "string") parts.finishReason = choice.finish_reason;
  }
  // A reply cut by the output limit: a call whose arguments do not parse never completed, and is left out (SPEC 10 rule 2).
  if (parts.finishReason === "length") parts.toolCalls = parts.toolCalls.filter((call) => parsesAsObject(call.arguments));
  const reasoning = parts.reasoning?.text ?? "";
  parts.answer = reasoningStandsIn(parts.text, parts.toolCalls.length > 0, reasoning) ? reasoning : parts.text;
  return parts;
}
