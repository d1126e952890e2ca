import type { HubUsage, Json } from "../hub.js";
import { createHubEventReader, type HubEvent } from "../hub-events.js";
import type { ClientEvent, ErrorFields, HubStreamItem, HubToClientStream, ReplyHints, TranslateContext } from "../types.js";
import {
  createCallIds,
  finishReasonOf,
  functionCallPart,
  reasoningStandsIn,
  responseBody,
  unwrapJsonText,
  usageMetadataOf,
} from "./gemini-response.js";
import { geminiFamily } from "../../families/gemini.js";

/** A call whose arguments are still arriving. */
interface HeldCall {
  id: string;
  name: string;
  arguments: string;
}

/** Arguments that are whole: a JSON object that parses, or none at all (a call without parameters). */
function complete(call: HeldCall): boolean {
  const text = call.arguments.trim();
  if (!text) return true;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * The hub stream as `streamGenerateContent?alt=sse` events: data-only (no `event:` names, no `[DONE]`), each one a
 * `GenerateContentResponse`. Text and thought pieces leave as they arrive, each in an event of its own. A
 * `functionCall` part must hold the whole call (Gemini has no argument deltas), so a call is held until a later
 * call opens or text follows and its arguments parse (calls leave in their order), and at the latest until the
 * end. The last event carries `finishReason` and the final `usageMetadata`: it waits for `finish()`, since chat
 * servers send usage in a chunk after the finish reason. With `jsonText` the text is held too and sent once, out
 * of its Markdown fence. Nothing opens the stream and nothing keeps it alive (`start()` and `keepAlive()` are
 * empty): the format has no opening or ping event, and any data event would be a response chunk to the SDK.
 */
export function geminiStreamFromHub(hints: ReplyHints, ctx: TranslateContext): HubToClientStream {
  const reader = createHubEventReader(ctx.ids);
  const callId = createCallIds(ctx.ids);
  const responseId = ctx.ids("");
  const held: HeldCall[] = [];
  const calls = new Map<number, HeldCall>();
  let jsonText = "";
  let visibleText = "";
  let reasoning = "";
  let finishReason: string | null = null;
  let usage: HubUsage | undefined;
  let closed = false;

  const event = (parts: Json[]): ClientEvent => ({ data: responseBody(parts, ctx, responseId) });

  /** The held calls that are complete, from the front: a later piece of the stream says the model moved on. */
  function readyCalls(): Json[] {
    const parts: Json[] = [];
    while (held[0] && complete(held[0])) parts.push(functionCallPart(held.shift()!, hints));
    return parts;
  }

  /** Sends `parts` after whatever calls are ready, as one event. */
  function send(out: ClientEvent[], ...parts: Json[]): void {
    const all = [...readyCalls(), ...parts];
    if (all.length > 0) out.push(event(all));
  }

  function fail(error: ErrorFields): ClientEvent[] {
    if (closed) return [];
    closed = true;
    return [{ data: geminiFamily.errorBody(error) }];
  }

  function handle(item: HubEvent, out: ClientEvent[]): void {
    switch (item.type) {
      case "reasoning":
        reasoning += item.text;
        if (hints.includeThoughts) send(out, { text: item.text, thought: true });
        return;
      case "text":
        visibleText += item.text;
        if (hints.jsonText) jsonText += item.text;
        else send(out, { text: item.text });
        return;
      case "tool_start": {
        send(out);
        const call: HeldCall = { id: callId(item.id), name: item.name, arguments: "" };
        held.push(call);
        calls.set(item.call, call);
        return;
      }
      case "tool_args": {
        // Pieces for a call already sent would make its arguments invalid JSON; a call is sent only once they parse.
        const call = calls.get(item.call);
        if (call && held.includes(call)) call.arguments += item.text;
        return;
      }
      case "finish":
        finishReason = item.reason;
        return;
      case "usage":
        usage = item.usage;
        return;
      case "error":
        out.push(...fail(item.error));
    }
  }

  return {
    start: () => [],
    push(item: HubStreamItem): ClientEvent[] {
      const out: ClientEvent[] = [];
      for (const hubEvent of reader.push(item)) {
        if (closed) break;
        handle(hubEvent, out);
      }
      return out;
    },
    finish(): ClientEvent[] {
      if (closed) return [];
      closed = true;
      const calledTools = reader.toolCalls > 0;
      const standIn = reasoningStandsIn(visibleText, calledTools, reasoning);
      const answer = standIn ? reasoning : jsonText;
      const text = hints.jsonText ? unwrapJsonText(answer) : answer;
      const parts: Json[] = text ? [{ text }] : [];
      for (const call of held) parts.push(functionCallPart(call, hints));
      const end = { finishReason: finishReasonOf(finishReason, calledTools), usageMetadata: usageMetadataOf(usage, hints) };
      return [{ data: responseBody(parts, ctx, responseId, end) }];
    },
    fail,
    keepAlive: () => [],
  };
}
