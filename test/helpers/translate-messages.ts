import { expect } from "vitest";
import type { HubToolCallDelta, Json } from "../../src/translate/hub.js";
import { messagesClient } from "../../src/formats/messages/translators.js";
import type { ClientEvent, HubStreamItem, ReplyHints } from "../../src/translate/types.js";
import { checkedStream, deltaItem, testContext } from "./translate.js";

/** What the messages translator tests share: requests as Claude Code builds them, usage figures, the expected events of a stream. */

/** A messages request's hub form, translated with a test context. */
export const hubOf = (body: Json, overrides: Parameters<typeof testContext>[0] = {}) => messagesClient.toHub(body, testContext(overrides)).request;
export const user = (content: unknown) => ({ role: "user", content });
export const assistant = (content: unknown) => ({ role: "assistant", content });
/** A messages request body around `messages`. */
export const body = (messages: unknown[], extra: Json = {}): Json => ({ model: "claude-sonnet-4-5", max_tokens: 1024, messages, ...extra });

/** Chat usage with cached tokens, and the same usage as messages counts it. */
export const USAGE = { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280, prompt_tokens_details: { cached_tokens: 1000 } };
export const USAGE_AS_MESSAGES = { input_tokens: 200, output_tokens: 80, cache_creation_input_tokens: 0, cache_read_input_tokens: 1000 };
/** Messages usage when the upstream sent none: the request's estimate as input. */
export const NO_USAGE = (input = 0) => ({ input_tokens: input, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

/** One messages stream event, its type named twice as Anthropic sends it. */
export const ev = (type: string, fields: Json = {}): ClientEvent => ({ event: type, data: { type, ...fields } });
/** `message_start` (with the test context's first id) and the `ping` after it. */
export const opening = (input = 0): ClientEvent[] => [
  ev("message_start", { message: { id: "msg_1", type: "message", role: "assistant", model: "client-model", content: [], stop_reason: null, stop_sequence: null, usage: NO_USAGE(input) } }),
  ev("ping"),
];
export const blockStart = (index: number, content_block: Json) => ev("content_block_start", { index, content_block });
export const blockDelta = (index: number, delta: Json) => ev("content_block_delta", { index, delta });
export const text = (index: number, value: string) => blockDelta(index, { type: "text_delta", text: value });
export const json = (index: number, partial_json: string) => blockDelta(index, { type: "input_json_delta", partial_json });
export const thinking = (index: number, value: string) => blockDelta(index, { type: "thinking_delta", thinking: value });
export const blockStop = (index: number) => ev("content_block_stop", { index });
export const textStart = (index: number) => blockStart(index, { type: "text", text: "" });
export const thinkingStart = (index: number) => blockStart(index, { type: "thinking", thinking: "" });
export const toolStart = (index: number, id: string, name: string) => blockStart(index, { type: "tool_use", id, name, input: {} });
/** `message_delta` with the stop reason and usage, then `message_stop`. */
export const closing = (stop_reason: string, usage: Json = NO_USAGE()): ClientEvent[] => [ev("message_delta", { delta: { stop_reason, stop_sequence: null }, usage }), ev("message_stop")];

/** A hub stream item of tool-call pieces. */
export const tools = (pieces: HubToolCallDelta[], finish: string | null = null) => deltaItem({ tool_calls: pieces }, finish);

/** Runs a hub stream through the messages translator: start, every item, finish. */
export function streamed(items: HubStreamItem[], hints: ReplyHints = {}): ClientEvent[] {
  const stream = checkedStream(messagesClient, hints, testContext());
  const out = stream.start();
  for (const item of items) out.push(...stream.push(item));
  out.push(...stream.finish());
  return out;
}

/** The arguments each tool block received, joined, parsed. */
export function toolInputs(events: ClientEvent[]): unknown[] {
  const byIndex = new Map<number, string>();
  for (const { data } of events as { data: Json }[]) {
    if (data.type === "content_block_start" && (data.content_block as Json).type === "tool_use") byIndex.set(data.index as number, "");
    const delta = data.delta as Json | undefined;
    if (data.type === "content_block_delta" && delta?.type === "input_json_delta") byIndex.set(data.index as number, (byIndex.get(data.index as number) ?? "") + (delta.partial_json as string));
  }
  return [...byIndex.values()].map((joined) => JSON.parse(joined));
}

/** The grammar every stream must keep (research B2 invariants 1, 3, 8). */
export function expectGrammar(events: ClientEvent[]): void {
  const types = events.map((event) => (event.data as Json).type);
  expect(types[0]).toBe("message_start");
  expect(types.filter((type) => type === "message_start")).toHaveLength(1);
  let open: number | undefined;
  let next = 0;
  for (const { data } of events as { data: Json }[]) {
    if (data.type === "content_block_start") {
      expect(open).toBeUndefined();
      expect(data.index).toBe(next++);
      open = data.index as number;
    } else if (data.type === "content_block_delta") expect(data.index).toBe(open);
    else if (data.type === "content_block_stop") {
      expect(data.index).toBe(open);
      open = undefined;
    }
  }
  expect(open).toBeUndefined();
  if (types.at(-1) !== "error") expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
}
