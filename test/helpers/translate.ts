import { KINDS } from "../../src/kinds/index.js";
import { createSseDecoder } from "../../src/sse/sse.js";
import { createReasoningSeal } from "../../src/translate/reasoning-seal.js";
import { STREAM_END, upstreamEventOf } from "../../src/translate/upstream-event.js";
import type { HubChunk, HubReply } from "../../src/translate/hub.js";
import type { ChatHints } from "../../src/formats/chat/chat-client.js";
import type { ClientEvent, ClientSide, HubStreamItem, HubToClientStream, IdSource, ReplyHints, TranslateContext, UpstreamSide } from "../../src/translate/types.js";

/** Ids `<prefix>1`, `<prefix>2`, ... per prefix: replies compare exactly. */
export function sequentialIds(): IdSource {
  const counts = new Map<string, number>();
  return (prefix) => {
    const n = (counts.get(prefix) ?? 0) + 1;
    counts.set(prefix, n);
    return `${prefix}${n}`;
  };
}

/** The events as tests compare them: a template's `json` checked against `JSON.stringify(data)`, then left out. */
function checkedEvents(events: ClientEvent[]): ClientEvent[] {
  return events.map(({ json, ...event }) => {
    if (json !== undefined && json !== JSON.stringify(event.data)) throw new Error(`a template wrote ${json}\nwhere JSON.stringify writes ${JSON.stringify(event.data)}`);
    return event;
  });
}

/** A client format's stream translator whose every event goes through `checkedEvents`. */
export function checkedStream<H extends ReplyHints>(side: ClientSide<H>, hints: H, ctx: TranslateContext): HubToClientStream {
  const stream = side.streamFromHub(hints, ctx);
  return {
    start: () => checkedEvents(stream.start()),
    push: (item) => checkedEvents(stream.push(item)),
    finish: () => checkedEvents(stream.finish()),
    fail: (error) => checkedEvents(stream.fail(error)),
    keepAlive: () => checkedEvents(stream.keepAlive()),
  };
}

/** The seal of a test install. */
export const testSeal = createReasoningSeal(Buffer.from("test-reasoning-secret"));

/** A translation context for a chat upstream, with deterministic ids. */
export function testContext(overrides: Partial<TranslateContext> = {}): TranslateContext {
  return {
    clientModel: "client-model",
    upstreamModel: "upstream-model",
    maxOutputTokens: undefined,
    reasoningEffort: false,
    keepsBillingHeader: false,
    quirks: KINDS.generic.quirks,
    seal: testSeal,
    ids: sequentialIds(),
    ...overrides,
  };
}

/** A hub stream item holding one chunk with one choice whose delta is `delta`. */
export function deltaItem(delta: HubChunk["choices"][number]["delta"], finish: string | null = null, usage?: HubChunk["usage"]): HubStreamItem {
  return { type: "chunk", chunk: { id: "chatcmpl-1", model: "upstream-model", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) } };
}

/** The usage-only chunk that follows the finish chunk when `stream_options.include_usage` was asked. */
export function usageItem(usage: NonNullable<HubChunk["usage"]>): HubStreamItem {
  return { type: "chunk", chunk: { id: "chatcmpl-1", model: "upstream-model", choices: [], usage } };
}

/** A non-stream chat reply with one choice holding `message`. */
export function hubReply(message: Partial<HubReply["choices"][number]["message"]>, finish: string | null = "stop", usage?: HubReply["usage"]): HubReply {
  return { id: "chatcmpl-1", object: "chat.completion", model: "upstream-model", choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }], ...(usage ? { usage } : {}) };
}

/**
 * The whole pipeline the server runs for a translated stream, without the server: the upstream's bytes (in the pieces
 * given) -> SSE events, up to chat's `[DONE]` -> the upstream format's hub items -> the client format's events.
 * Timestamps are zeroed (they may tick between two runs).
 */
export function translateStream(client: ClientSide, upstream: UpstreamSide, pieces: readonly Buffer[], hints: ReplyHints | ChatHints = { inputTokens: 42, includeUsage: true }): ClientEvent[] {
  const ctx = testContext();
  const sink = checkedStream(client, hints, ctx);
  const source = upstream.streamToHub(ctx);
  const out: ClientEvent[] = [...sink.start()];
  let ended = false;
  const decoder = createSseDecoder((message) => {
    if (ended) return;
    const event = upstreamEventOf(message);
    if (event === STREAM_END) ended = true;
    else if (event) for (const item of source.push(event)) out.push(...sink.push(item));
  });
  for (const piece of pieces) if (!ended) decoder.feed(piece);
  if (!ended) decoder.end();
  for (const item of source.finish()) out.push(...sink.push(item));
  out.push(...sink.finish());
  return JSON.parse(JSON.stringify(out, (key, value: unknown) => (key === "created" || key === "created_at" ? 0 : value))) as ClientEvent[];
}
