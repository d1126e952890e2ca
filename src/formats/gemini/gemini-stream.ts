import type { GeminiHints } from "./gemini-request.js";
import type { Json, ReasoningField } from "../../translate/hub.js";
import { createClientStream } from "../../translate/client-stream.js";
import type { HubEvent } from "../../translate/hub-events.js";
import type { ClientEvent, HubToClientStream, TranslateContext } from "../../translate/types.js";
import { createCallIds, finishReasonOf, functionCallPart, responseBody, unwrapJsonText, usageMetadataOf } from "./gemini-response.js";
import { geminiFamily } from "./family.js";
import { parsesAsObject } from "../../translate/tool-arguments.js";

/** A call whose arguments are still arriving, with the reasoning that came before it. */
interface HeldCall {
  id: string;
  name: string;
  arguments: string;
  reasoning: { text: string; field: ReasoningField } | undefined;
}

/** Arguments that are whole: a JSON object that parses, or none at all (a call without parameters). */
const complete = (call: HeldCall): boolean => !call.arguments.trim() || parsesAsObject(call.arguments);

/**
 * The hub stream as `streamGenerateContent?alt=sse` events: data-only (no `event:` names, no `[DONE]`), each one a
 * `GenerateContentResponse`. Text and thought pieces leave as they arrive, each in an event of its own. A
 * `functionCall` part must hold the whole call (Gemini has no argument deltas), so a call is held until a later
 * call opens or text follows and its arguments parse (calls leave in their order), and at the latest until the
 * end; each call part carries the reasoning that came before it, sealed as its `thoughtSignature`, for the
 * next request to give back. The last event carries `finishReason` and the final `usageMetadata`: it waits for
 * `finish()`, since chat servers send usage in a chunk after the finish reason. With `jsonText` the text is held
 * too and sent once, out of its Markdown fence. Nothing opens the stream and nothing keeps it alive (`start()` and
 * `keepAlive()` are empty): the format has no opening or ping event, and any data event would be a response chunk
 * to the SDK.
 */
export function geminiStreamFromHub(hints: GeminiHints, ctx: TranslateContext): HubToClientStream {
  const callId = createCallIds(ctx.ids);
  const responseId = ctx.ids("");
  const held: HeldCall[] = [];
  const calls = new Map<number, HeldCall>();
  let jsonText = "";
  /** The reasoning since the last call opened, and the field it came under. */
  let unsealed: HeldCall["reasoning"];

  const event = (parts: Json[]): ClientEvent => ({ data: responseBody(parts, ctx, responseId) });
  const tail = `"modelVersion":${JSON.stringify(ctx.clientModel)},"responseId":${JSON.stringify(responseId)}`;
  /** A text piece in an event of its own (most of a stream's events: its JSON from a template, `ClientEvent.json`). */
  const textEvent = (text: string): ClientEvent => ({
    data: responseBody([{ text }], ctx, responseId),
    json: `{"candidates":[{"content":{"role":"model","parts":[{"text":${JSON.stringify(text)}}]},"index":0}],${tail}}`,
  });

  /** A call's part, carrying the reasoning that came before it, sealed. */
  const callPart = (call: HeldCall): Json => functionCallPart(call, hints, call.reasoning ? ctx.seal.seal(call.reasoning.text, call.reasoning.field) : undefined);

  /** The held calls that are complete, from the front: a later piece of the stream says the model moved on. */
  function readyCalls(): Json[] {
    const parts: Json[] = [];
    while (held[0] && complete(held[0])) parts.push(callPart(held.shift()!));
    return parts;
  }

  /** `parts` after whatever calls are ready, as one event (or none). */
  function send(...parts: Json[]): ClientEvent[] {
    const all = [...readyCalls(), ...parts];
    return all.length > 0 ? [event(all)] : [];
  }

  function onEvent(item: Exclude<HubEvent, { type: "error" }>): ClientEvent[] {
    switch (item.type) {
      case "reasoning":
        unsealed = { text: (unsealed?.text ?? "") + item.text, field: unsealed?.field ?? item.field };
        return hints.includeThoughts ? send({ text: item.text, thought: true }) : [];
      case "text": {
        if (hints.jsonText) {
          jsonText += item.text;
          return [];
        }
        const ready = readyCalls();
        return ready.length > 0 ? [event([...ready, { text: item.text }])] : [textEvent(item.text)];
      }
      case "tool_start": {
        const out = send();
        const call: HeldCall = { id: callId(item.id), name: item.name, arguments: "", reasoning: unsealed };
        unsealed = undefined;
        held.push(call);
        calls.set(item.call, call);
        return out;
      }
      case "tool_args": {
        // Pieces for a call already sent would make its arguments invalid JSON; a call is sent only once they parse.
        const call = calls.get(item.call);
        if (call && held.includes(call)) call.arguments += item.text;
        return [];
      }
      case "finish":
      case "usage":
        return [];
    }
  }

  return createClientStream({
    opening: () => [],
    onEvent,
    closing({ finishReason, usage, toolCalls, answerFromReasoning }) {
      const answer = answerFromReasoning ?? jsonText;
      const text = hints.jsonText ? unwrapJsonText(answer) : answer;
      const parts: Json[] = text ? [{ text }] : [];
      // A reply cut by the output limit: a call whose arguments never completed is left out, never sent as a whole one.
      for (const call of held) if (finishReason !== "length" || parsesAsObject(call.arguments)) parts.push(callPart(call));
      const end = { finishReason: finishReasonOf(finishReason ?? null, toolCalls > 0), usageMetadata: usageMetadataOf(usage, hints) };
      return [{ data: responseBody(parts, ctx, responseId, end) }];
    },
    failure: (error) => [geminiFamily.errors.event(error)],
    keepAlive: () => [],
  });
}
