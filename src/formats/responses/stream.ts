import type { Json, ReasoningField } from "../../translate/hub.js";
import { createClientStream } from "../../translate/client-stream.js";
import type { HubEvent } from "../../translate/hub-events.js";
import type { ClientEvent, HubToClientStream, TranslateContext } from "../../translate/types.js";
import { callItemPrefix, responseError, responseObject, responseUsage, statusOf, type ResponseState } from "./output-items.js";
import { itemEvents, type Emit, type OpenItem, type StreamCall } from "./stream-items.js";
import type { ResponsesHints } from "./to-hub.js";
import { compactionItem } from "./compaction.js";
import { clientTool } from "../../translate/tool-names.js";
import { createCallQueue } from "../../translate/call-queue.js";
import { parsesAsObject } from "../../translate/tool-arguments.js";

/**
 * The hub stream as a Responses event stream (research C2's sequence): `response.created` and
 * `response.in_progress` first, then each output item opened, fed and closed with `output_item.done` carrying the
 * whole item before the next item opens (Codex builds its history from those alone), then `response.completed`
 * with every item and the usage, held until the upstream's end so a usage chunk after the finish chunk counts.
 * A stream cut short by `length` still ends with `response.completed` (status `incomplete`): Codex takes a stream
 * without it for broken and retries the turn. A call it cut closes as OpenAI closes one, its item `incomplete` with
 * the arguments that came; a call that was waiting behind it never opened, and is left out. A reply that is
 * reasoning alone gets that reasoning as a message too: `codex exec` prints the last message, and would print nothing.
 *
 * A compaction (SPEC 11) streams no text: the model's summary is gathered, and the stream closes with its one
 * `compaction` item, whatever else the model said or tried to call left out.
 *
 * Tool calls: a call is an item of its own; parallel calls whose pieces interleave go through the call queue
 * (`call-queue.ts`), one item at a time.
 */
export function responsesStream(hints: ResponsesHints, ctx: TranslateContext): HubToClientStream {
  const { echo, compaction } = hints;
  /** A compaction's summary, gathered to be sealed whole into its one item at the end. */
  let summary = "";
  const base = { id: ctx.ids("resp_"), createdAt: Math.floor(Date.now() / 1000), model: ctx.clientModel };
  let sequence = 0;
  const emit: Emit = (type, fields, fieldsJson) => {
    const number = sequence++;
    const data = { type, sequence_number: number, ...fields };
    if (fieldsJson === undefined) return { event: type, data };
    return { event: type, data, json: `{"type":"${type}","sequence_number":${number},${fieldsJson}}` };
  };
  const output: Json[] = [];
  let open: OpenItem | undefined;

  const response = (state: Pick<ResponseState, "status" | "usage" | "error" | "incompleteDetails">) => ({
    response: responseObject({ output: [...output], ...base, ...state }, echo),
  });

  function opening(): ClientEvent[] {
    const opened = response({ status: "in_progress", usage: null });
    return [emit("response.created", opened), emit("response.in_progress", opened)];
  }

  function openItem(item: OpenItem): ClientEvent[] {
    open = item;
    return itemEvents.opened(emit, item);
  }

  function closeOpen(cut = false): ClientEvent[] {
    if (!open) return [];
    const { events, done } = itemEvents.closed(emit, open, ctx.seal, cut && open.kind === "tool" && !parsesAsObject(open.call.args));
    output.push(done);
    open = undefined;
    return events;
  }

  /** A compaction's one item (SPEC 11), added and done at once: Codex keeps it from `output_item.done`. */
  function compactionEvents(text: string): ClientEvent[] {
    const item = compactionItem(ctx.ids("cmp_"), text, ctx.seal);
    output.push(item);
    return [emit("response.output_item.added", { output_index: 0, item }), emit("response.output_item.done", { output_index: 0, item })];
  }

  const calls = createCallQueue<StreamCall>({
    openCall: () => (open?.kind === "tool" ? open.call : undefined),
    open: (call) => openItem({ kind: "tool", id: ctx.ids(callItemPrefix(call.tool)), index: output.length, call }),
    close: closeOpen,
    piece: (text) => (open ? itemEvents.delta(emit, open, text) : []),
  });

  /** A reasoning or text piece: into the open item of its kind, or a new one after closing whatever was open. */
  function piece(kind: "reasoning" | "message", delta: string, field: ReasoningField = "reasoning_content"): ClientEvent[] {
    const out: ClientEvent[] = [];
    let item = open;
    if (item?.kind !== kind) {
      out.push(...calls.settle());
      item = kind === "reasoning" ? { kind, id: ctx.ids("rs_"), index: output.length, text: "", field } : { kind, id: ctx.ids("msg_"), index: output.length, text: "" };
      out.push(...openItem(item));
    }
    item.text += delta;
    return [...out, ...itemEvents.delta(emit, item, delta)];
  }

  function onEvent(event: Exclude<HubEvent, { type: "error" }>): ClientEvent[] {
    if (compaction) {
      if (event.type === "text") summary += event.text;
      return [];
    }
    switch (event.type) {
      case "reasoning":
        return piece("reasoning", event.text, event.field);
      case "text":
        return piece("message", event.text);
      case "tool_start":
        return calls.start({ call: event.call, callId: event.id ?? ctx.ids("call_"), tool: clientTool(hints.toolNames, event.name), args: "" });
      case "tool_args":
        return calls.args(event.call, event.text);
      case "finish":
        return calls.settle(event.reason === "length");
      case "usage":
        return [];
    }
  }

  return createClientStream({
    opening,
    onEvent,
    closing({ finishReason, usage, toolCalls, answerFromReasoning }) {
      const out = compaction
        ? compactionEvents(summary || answerFromReasoning || "")
        : [...(answerFromReasoning === undefined ? [] : piece("message", answerFromReasoning)), ...calls.settle()];
      const { status, incomplete_details } = statusOf(finishReason, !compaction && toolCalls > 0);
      out.push(emit("response.completed", response({ status, usage: responseUsage(usage), incompleteDetails: incomplete_details })));
      return out;
    },
    // Items still open are left out: a half-streamed call closed as done would be run by Codex.
    failure: (error) => [emit("response.failed", response({ status: "failed", usage: null, error: responseError(error) }))],
    /**
     * The API's own heartbeat, `{"type":"keepalive"}`: any event restarts Codex's idle timer (300 s by default),
     * which a local model reading a long prompt can outlast, while an SSE comment restarts nothing in Codex's
     * reader. OpenAI sends this event itself, so Responses clients skip it (openai-node since the fix for its issue #1964).
     */
    keepAlive: () => [emit("keepalive", {})],
  });
}
