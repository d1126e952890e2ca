import type { MessagesHints } from "./request-to-hub.js";
import type { Json, ReasoningField } from "../../translate/hub.js";
import { createClientStream } from "../../translate/client-stream.js";
import type { HubEvent } from "../../translate/hub-events.js";
import type { ClientEvent, HubToClientStream, TranslateContext } from "../../translate/types.js";
import { messagesFamily } from "./family.js";
import { stopReasonOf } from "./stop-reasons.js";
import { clientTool } from "../../translate/tool-names.js";
import { ArgumentWriter, parsesAsObject } from "../../translate/tool-arguments.js";
import { createCallQueue, type QueuedCall } from "../../translate/call-queue.js";
import { toolUseId } from "./tool-ids.js";
import { messagesUsageOf } from "./usage.js";

type OpenBlock =
  | { kind: "thinking"; index: number; text: string; field: ReasoningField }
  | { kind: "text"; index: number }
  | { kind: "tool"; index: number; call: ToolCall };

/** A tool call: its `tool_use` block as it opens, its argument text so far, and what of it went out. */
interface ToolCall extends QueuedCall {
  contentBlock: Json;
  writer: ArgumentWriter;
}

/** Every messages event names its type twice: as the SSE event and inside the data. */
const messagesEvent = (type: string, fields: Json = {}): ClientEvent => ({ event: type, data: { type, ...fields } });

/**
 * The hub stream as Anthropic's event sequence (research B2): `message_start` and a `ping` first (with the
 * input-token estimate, so Claude Code's context meter is right from the start), then one content block at a
 * time, indexed from 0 and each closed before the next opens (thinking with a `signature_delta` before its
 * stop; text opened on the first text that is not white space alone, since local models put "\n\n" before
 * their tool calls and Anthropic refuses a blank text block once Claude Code sends it back; a tool block opened
 * once the call's name is known, fed only `input_json_delta` pieces), then one `message_delta` and one
 * `message_stop` at the end alone, so that a usage chunk that follows the finish reason still reaches the final
 * usage. A reply that is reasoning alone gets that reasoning as a text block too: Claude Code shows no thinking
 * block as an answer. Thinking comes first in a message (SPEC 10 rule 4): reasoning that resumes once the answer
 * has begun (a text or tool block opened) is left out, as a block after the text would break that order.
 *
 * A tool block's pieces go through an `ArgumentWriter`: Claude Code builds the input from the `input_json_delta`
 * pieces alone (research B2 invariant 4), so they always join into one object (`tool-arguments.ts`), except in a
 * reply cut by the output limit, whose unfinished call ends with the pieces that came (SPEC 10 rule 2).
 *
 * Parallel calls whose pieces interleave go through the call queue (`call-queue.ts`), one block at a time.
 */
export function messagesStreamFromHub(hints: MessagesHints, ctx: TranslateContext): HubToClientStream {
  let nextIndex = 0;
  let open: OpenBlock | undefined;
  /** A text or tool block has opened: the thinking block's place, first, is past. */
  let answering = false;
  /** White space that came while no text block was open: it goes out with the text that follows, or not at all. */
  let blank = "";

  /**
   * A content block delta (most of a stream's events): one string field under its delta type, its JSON written from
   * a template (`ClientEvent.json`).
   */
  function delta(index: number, type: string, field: string, value: string): ClientEvent {
    const event = messagesEvent("content_block_delta", { index, delta: { type, [field]: value } });
    event.json = `{"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${field}":${JSON.stringify(value)}}}`;
    return event;
  }

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

  /** A piece of the open tool block's input, when there is one. */
  const argumentsDelta = (index: number, text: string): ClientEvent[] => (text ? [delta(index, "input_json_delta", "partial_json", text)] : []);

  function close(cut = false): ClientEvent[] {
    if (!open) return [];
    const out: ClientEvent[] = [];
    if (open.kind === "thinking") out.push(delta(open.index, "signature_delta", "signature", ctx.seal.sign(open.text, open.field)));
    if (open.kind === "tool") {
      // A call cut by the output limit ends with what came (the characters held back included); any other is completed.
      const { writer, args } = open.call;
      out.push(...argumentsDelta(open.index, cut && !parsesAsObject(args) ? writer.held() : writer.end(args)));
    }
    out.push(messagesEvent("content_block_stop", { index: open.index }));
    open = undefined;
    return out;
  }

  /** Starts a block; nothing is open then. */
  function startBlock<B extends OpenBlock>(block: B, contentBlock: Json): ClientEvent {
    blank = "";
    open = block;
    answering ||= block.kind !== "thinking";
    return messagesEvent("content_block_start", { index: block.index, content_block: contentBlock });
  }

  const calls = createCallQueue<ToolCall>({
    openCall: () => (open?.kind === "tool" ? open.call : undefined),
    open(call) {
      const index = nextIndex++;
      return [startBlock({ kind: "tool", index, call }, call.contentBlock), ...argumentsDelta(index, call.writer.push(call.args))];
    },
    close,
    piece: (text) => (open?.kind === "tool" ? argumentsDelta(open.index, open.call.writer.push(text)) : []),
  });

  /** Opens a text or thinking block after the open one, and every call waiting behind it, is closed. */
  function openBlock<B extends OpenBlock>(make: (index: number) => B, contentBlock: Json): { events: ClientEvent[]; block: B } {
    const events = calls.settle();
    const block = make(nextIndex++);
    events.push(startBlock(block, contentBlock));
    return { events, block };
  }

  function onEvent(event: Exclude<HubEvent, { type: "error" }>): ClientEvent[] {
    switch (event.type) {
      case "reasoning": {
        if (answering) return [];
        const { events, block } =
          open?.kind === "thinking" ? { events: [], block: open } : openBlock((index) => ({ kind: "thinking", index, text: "", field: event.field }), { type: "thinking", thinking: "" });
        block.text += event.text;
        return [...events, delta(block.index, "thinking_delta", "thinking", event.text)];
      }
      case "text": {
        if (open?.kind === "text") return [delta(open.index, "text_delta", "text", event.text)];
        blank += event.text;
        if (!blank.trim()) return [];
        const piece = blank;
        blank = "";
        const { events, block } = openBlock((index) => ({ kind: "text", index }), { type: "text", text: "" });
        return [...events, delta(block.index, "text_delta", "text", piece)];
      }
      case "tool_start": {
        const contentBlock = { type: "tool_use", id: toolUseId(event.id, ctx.ids), name: clientTool(hints.toolNames, event.name).name, input: {} };
        return calls.start({ call: event.call, contentBlock, args: "", writer: new ArgumentWriter() });
      }
      case "tool_args":
        return calls.args(event.call, event.text);
      case "finish":
      case "usage":
        return [];
    }
  }

  return createClientStream({
    opening,
    onEvent,
    closing({ finishReason, usage, toolCalls, answerFromReasoning }) {
      const out = answerFromReasoning === undefined ? [] : onEvent({ type: "text", text: answerFromReasoning });
      out.push(...calls.settle(finishReason === "length"));
      const stop = { stop_reason: stopReasonOf(finishReason, toolCalls > 0), stop_sequence: null };
      out.push(messagesEvent("message_delta", { delta: stop, usage: messagesUsageOf(usage, hints.inputTokens ?? 0) }));
      out.push(messagesEvent("message_stop"));
      return out;
    },
    failure: (error) => [messagesFamily.errors.event(error)],
    keepAlive: (justOpened) => (justOpened ? [] : [messagesEvent("ping")]),
  });
}
