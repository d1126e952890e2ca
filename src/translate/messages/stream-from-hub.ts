import { jsonrepair } from "jsonrepair";
import type { Json, ReasoningField } from "../hub.js";
import { createClientStream } from "../client-stream.js";
import type { HubEvent } from "../hub-events.js";
import type { ClientEvent, HubToClientStream, ReplyHints, TranslateContext } from "../types.js";
import { stopReasonOf } from "./stop-reasons.js";
import { clientTool } from "../tool-names.js";
import { parsesAsObject } from "../tool-arguments.js";
import { toolUseId } from "./tool-ids.js";
import { messagesUsageOf } from "./usage.js";

type OpenBlock =
  | { kind: "thinking"; index: number; text: string; field: ReasoningField }
  | { kind: "text"; index: number }
  | { kind: "tool"; index: number; call: number; args: string };

/** A tool call that started while another's arguments were still coming: its block opens when that one is whole. */
interface WaitingCall {
  call: number;
  contentBlock: Json;
  args: string;
}

/** Every messages event names its type twice: as the SSE event and inside the data. */
const messagesEvent = (type: string, fields: Json = {}): ClientEvent => ({ event: type, data: { type, ...fields } });

/**
 * What to send after a tool block's argument pieces so that they join into one JSON object, as Claude Code
 * builds the input from the `input_json_delta` pieces alone (research B2 invariant 4): `{}` when none came; the
 * missing end when a local model stopped mid-object (what `jsonrepair` appends, when it only appends); else
 * nothing (what was sent cannot be taken back).
 */
function argumentsEnding(sent: string): string {
  if (!sent.trim()) return "{}";
  if (parsesAsObject(sent)) return "";
  try {
    const repaired = jsonrepair(sent);
    return repaired.startsWith(sent) && parsesAsObject(repaired) ? repaired.slice(sent.length) : "";
  } catch {
    return "";
  }
}

/**
 * The hub stream as Anthropic's event sequence (research B2): `message_start` and a `ping` first (with the
 * input-token estimate, so Claude Code's context meter is right from the start), then one content block at a
 * time, indexed from 0 and each closed before the next opens (thinking with a `signature_delta` before its
 * stop; text opened on the first text that is not white space alone, since local models put "\n\n" before
 * their tool calls and Anthropic refuses a blank text block once Claude Code sends it back; a tool block opened
 * once the call's name is known, fed only `input_json_delta` pieces), then one `message_delta` and one
 * `message_stop` at the end alone, so that a usage chunk that follows the finish reason still reaches the final
 * usage. A reply that is reasoning alone gets that reasoning as a text block too: Claude Code shows no thinking
 * block as an answer.
 *
 * Tool calls: when a second call starts while the open one's arguments are not a whole JSON object yet (an upstream
 * that interleaves parallel calls), the second waits, its arguments buffered, until the first is whole or anything
 * else comes; so no argument piece belongs to a block already closed.
 */
export function messagesStreamFromHub(hints: ReplyHints, ctx: TranslateContext): HubToClientStream {
  let nextIndex = 0;
  let open: OpenBlock | undefined;
  const waiting: WaitingCall[] = [];
  /** White space that came while no text block was open: it goes out with the text that follows, or not at all. */
  let blank = "";

  const delta = (index: number, fields: Json): ClientEvent => messagesEvent("content_block_delta", { index, delta: fields });

  function opening(): ClientEvent[] {
    const message = {
      id: ctx.ids("msg_"),
      type: "message",
      role: "assistant",
      model: ctx.clientModel,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: hints.inputTokens ?? 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    return [messagesEvent("message_start", { message }), messagesEvent("ping")];
  }

  function close(): ClientEvent[] {
    if (!open) return [];
    const out: ClientEvent[] = [];
    if (open.kind === "thinking") out.push(delta(open.index, { type: "signature_delta", signature: ctx.seal.sign(open.text, open.field) }));
    const ending = open.kind === "tool" ? argumentsEnding(open.args) : "";
    if (ending) out.push(delta(open.index, { type: "input_json_delta", partial_json: ending }));
    out.push(messagesEvent("content_block_stop", { index: open.index }));
    open = undefined;
    return out;
  }

  /** Opens a block after the open one (and every call waiting behind it) is closed. */
  function openBlock<B extends OpenBlock>(block: B, contentBlock: Json): { events: ClientEvent[]; block: B } {
    const events = settle();
    blank = "";
    open = block;
    events.push(messagesEvent("content_block_start", { index: block.index, content_block: contentBlock }));
    return { events, block };
  }

  /** A waiting call's block, opened with the arguments it has so far. */
  function openWaiting(call: WaitingCall): ClientEvent[] {
    open = { kind: "tool", index: nextIndex++, call: call.call, args: call.args };
    const events = [messagesEvent("content_block_start", { index: open.index, content_block: call.contentBlock })];
    if (call.args) events.push(delta(open.index, { type: "input_json_delta", partial_json: call.args }));
    return events;
  }

  /** Closes the open block and then each waiting call's, in the order they started. */
  function settle(): ClientEvent[] {
    const out = close();
    for (let call = waiting.shift(); call; call = waiting.shift()) out.push(...openWaiting(call), ...close());
    return out;
  }

  /** Once the open call's arguments are whole, the next waiting call takes its place. */
  function promote(): ClientEvent[] {
    const out: ClientEvent[] = [];
    while (open?.kind === "tool" && waiting.length > 0 && parsesAsObject(open.args)) out.push(...close(), ...openWaiting(waiting.shift()!));
    return out;
  }

  function onEvent(event: Exclude<HubEvent, { type: "error" }>): ClientEvent[] {
    switch (event.type) {
      case "reasoning": {
        const { events, block } =
          open?.kind === "thinking" ? { events: [], block: open } : openBlock({ kind: "thinking", index: nextIndex++, text: "", field: event.field }, { type: "thinking", thinking: "" });
        block.text += event.text;
        return [...events, delta(block.index, { type: "thinking_delta", thinking: event.text })];
      }
      case "text": {
        if (open?.kind === "text") return [delta(open.index, { type: "text_delta", text: event.text })];
        blank += event.text;
        if (!blank.trim()) return [];
        const piece = blank;
        blank = "";
        const { events, block } = openBlock({ kind: "text", index: nextIndex++ }, { type: "text", text: "" });
        return [...events, delta(block.index, { type: "text_delta", text: piece })];
      }
      case "tool_start": {
        const contentBlock = { type: "tool_use", id: toolUseId(event.id, ctx.ids), name: clientTool(hints.toolNames, event.name).name, input: {} };
        if (open?.kind === "tool" && (waiting.length > 0 || !parsesAsObject(open.args))) {
          waiting.push({ call: event.call, contentBlock, args: "" });
          return [];
        }
        return openBlock({ kind: "tool", index: nextIndex++, call: event.call, args: "" }, contentBlock).events;
      }
      case "tool_args": {
        if (open?.kind === "tool" && open.call === event.call) {
          open.args += event.text;
          return [delta(open.index, { type: "input_json_delta", partial_json: event.text }), ...promote()];
        }
        const call = waiting.find((w) => w.call === event.call);
        if (call) call.args += event.text;
        return [];
      }
      case "finish":
      case "usage":
        return [];
    }
  }

  return createClientStream(ctx.ids, {
    opening,
    onEvent,
    closing({ finishReason, usage, toolCalls, answerFromReasoning }) {
      const out = answerFromReasoning === undefined ? [] : onEvent({ type: "text", text: answerFromReasoning });
      out.push(...settle());
      const stop = { stop_reason: stopReasonOf(finishReason, toolCalls > 0), stop_sequence: null };
      out.push(messagesEvent("message_delta", { delta: stop, usage: messagesUsageOf(usage, hints.inputTokens ?? 0) }));
      out.push(messagesEvent("message_stop"));
      return out;
    },
    failure: (error) => [messagesEvent("error", { error: { type: error.type, message: error.message } })],
    keepAlive: (justOpened) => (justOpened ? [] : [messagesEvent("ping")]),
  });
}
