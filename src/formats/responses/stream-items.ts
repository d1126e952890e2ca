import type { Json, ReasoningField } from "../../translate/hub.js";
import type { ClientEvent, ReasoningSeal } from "../../translate/types.js";
import { messageItem, outputText, reasoningItem, toolCallItem } from "./output-items.js";
import type { ClientTool } from "../../translate/tool-names.js";
import type { QueuedCall } from "../../translate/call-queue.js";

/**
 * Writes one Responses stream event: its SSE `event:` name equals `type`, and `sequence_number` counts from 0.
 * `fieldsJson`, from a template, is `fields` serialised without its braces (`ClientEvent.json`).
 */
export type Emit = (type: string, fields: Json, fieldsJson?: string) => ClientEvent;

/** An output item being streamed: its id, its `output_index`, and what it holds so far. */
export type OpenItem =
  | { kind: "reasoning"; id: string; index: number; text: string; field: ReasoningField }
  | { kind: "message"; id: string; index: number; text: string }
  | { kind: "tool"; id: string; index: number; call: StreamCall };

/** A tool call of the stream: the hub reader's ordinal and its argument text, the upstream's call id, the client's tool. */
export interface StreamCall extends QueuedCall {
  callId: string;
  tool: ClientTool;
}

const summaryPart = (text: string): Json => ({ type: "summary_text", text });

/**
 * The events of each item kind, in the order the Responses API sends them: `output_item.added`, the part or
 * summary part opened, the deltas, their `.done`, the part closed, `output_item.done` with the complete item.
 * Freeform tool input is sent at the close (the chat side streams it wrapped in JSON), as one delta and its `.done`.
 * Each event's fields are written out, not spread from a shared `{item_id, output_index}`: on Node 20 an object
 * literal that adds keys after a spread costs about 0.6 µs a key, more than the rest of the event.
 */
export const itemEvents = {
  opened(emit: Emit, item: OpenItem): ClientEvent[] {
    const { id, index } = item;
    if (item.kind === "reasoning") {
      return [
        emit("response.output_item.added", { output_index: index, item: { id, type: "reasoning", summary: [] } }),
        emit("response.reasoning_summary_part.added", { item_id: id, output_index: index, summary_index: 0, part: summaryPart("") }),
      ];
    }
    if (item.kind === "message") {
      return [
        emit("response.output_item.added", { output_index: index, item: messageItem(id, "in_progress") }),
        emit("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: outputText("") }),
      ];
    }
    const { callId, tool, args } = item.call;
    return [emit("response.output_item.added", { output_index: index, item: toolCallItem(id, callId, tool, "", "in_progress") }), ...itemEvents.delta(emit, item, args)];
  },

  /** A piece of the item's text (most of a stream's events: their JSON from a template); `item` already holds it. */
  delta(emit: Emit, item: OpenItem, delta: string): ClientEvent[] {
    if (!delta || (item.kind === "tool" && item.call.tool.custom)) return [];
    const { id, index } = item;
    const head = `"item_id":${JSON.stringify(id)},"output_index":${index}`;
    const text = JSON.stringify(delta);
    if (item.kind === "reasoning") {
      return [emit("response.reasoning_summary_text.delta", { item_id: id, output_index: index, summary_index: 0, delta }, `${head},"summary_index":0,"delta":${text}`)];
    }
    if (item.kind === "message") {
      return [emit("response.output_text.delta", { item_id: id, output_index: index, content_index: 0, delta, logprobs: [] }, `${head},"content_index":0,"delta":${text},"logprobs":[]`)];
    }
    return [emit("response.function_call_arguments.delta", { item_id: id, output_index: index, delta }, `${head},"delta":${text}`)];
  },

  /**
   * The closing events; the last one carries the complete item, also returned for the response's `output`. A call cut
   * by the output limit closes `incomplete`, with the arguments that came.
   */
  closed(emit: Emit, item: OpenItem, seal: ReasoningSeal, cut = false): { events: ClientEvent[]; done: Json } {
    const { id, index } = item;
    if (item.kind === "reasoning") {
      const done = reasoningItem(id, item.text, item.field, seal);
      const events = [
        emit("response.reasoning_summary_text.done", { item_id: id, output_index: index, summary_index: 0, text: item.text }),
        emit("response.reasoning_summary_part.done", { item_id: id, output_index: index, summary_index: 0, part: summaryPart(item.text) }),
      ];
      return { events: [...events, emit("response.output_item.done", { output_index: index, item: done })], done };
    }
    if (item.kind === "message") {
      const done = messageItem(id, "completed", item.text);
      const events = [
        emit("response.output_text.done", { item_id: id, output_index: index, content_index: 0, text: item.text, logprobs: [] }),
        emit("response.content_part.done", { item_id: id, output_index: index, content_index: 0, part: outputText(item.text) }),
      ];
      return { events: [...events, emit("response.output_item.done", { output_index: index, item: done })], done };
    }
    const { callId, tool, args } = item.call;
    const done = toolCallItem(id, callId, tool, args, cut ? "incomplete" : "completed");
    const input = tool.custom ? (done.input as string) : "";
    const events = tool.custom
      ? [
          ...(input ? [emit("response.custom_tool_call_input.delta", { item_id: id, output_index: index, delta: input })] : []),
          emit("response.custom_tool_call_input.done", { item_id: id, output_index: index, input }),
        ]
      : [emit("response.function_call_arguments.done", { item_id: id, output_index: index, name: tool.name, arguments: done.arguments })];
    return { events: [...events, emit("response.output_item.done", { output_index: index, item: done })], done };
  },
};
