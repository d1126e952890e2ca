import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { encodeEvent, encodeEvents, type SseOut } from "../../src/sse/sse.js";

type Json = Record<string, unknown>;

/** One request as the fake upstream received it. */
export interface Received {
  method: string;
  /** Path and query, as sent. */
  url: string;
  /** The path without its query. */
  path: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  /** The body's bytes, exactly as they came. */
  raw: Buffer;
  /** The body parsed, when it is JSON; undefined otherwise. */
  body: Json | undefined;
  /** Set when the connection closed before the reply finished (the gateway aborted it). */
  abortedAt?: number;
  /** `performance.now()` after each stream event was written (the built-in replies). */
  sentAt: number[];
}

/**
 * What a script answers: a JSON body, or a stream of raw chunks (SSE text the test wrote, cut where it likes). A
 * promise among the chunks holds the stream there until the test settles it; the chunks between two holds leave in
 * one write (Node corks the socket for the rest of the turn), so the gateway reads them at once. `die` cuts the
 * connection after the last chunk. `continueFirst` sends an unrequested `100 Continue` before the reply (which undici
 * refuses as a bad response).
 */
export type ScriptedReply = { status?: number; headers?: Record<string, string>; continueFirst?: boolean } & (
  | { json: unknown }
  | { chunks: (string | Buffer | Promise<void>)[]; gapMs?: number; die?: boolean; after?: Promise<void> }
);

/** Answers each request (translation tests: each case needs its own exact upstream bytes). */
export type Script = (request: Received) => ScriptedReply | Promise<ScriptedReply>;

/** How the built-in replies behave for the next requests; tests change it freely. */
export interface Behaviour {
  /** Delay between stream chunks. */
  chunkDelayMs: number;
  /** Awaited before each stream event after the first is written (its index): a test holds the stream in lockstep. */
  beforeEvent?: (index: number) => Promise<void>;
  /** Wait this long before sending response headers. */
  headersDelayMs: number;
  /** Stream this many chunks, then destroy the socket. */
  dieAfterChunks?: number;
  /** Stream this many chunks, then go silent forever. */
  stallAfterChunks?: number;
  /** Answer with this status and JSON body instead of a reply, for the first `times` requests (all when absent). */
  fail?: { status: number; body?: unknown; headers?: Record<string, string>; times?: number };
  /** Extra response headers on successful replies. */
  headers: Record<string, string>;
  /** The key the upstream accepts; others get 401. */
  key: string;
  /** Stream this many bytes of extra content events (64 KiB each, written with backpressure) before the reply. */
  bulkBytes?: number;
  /**
   * Answer a stream with exactly these chunks, then destroy the socket once the kernel has them all: a death
   * mid-event. A promise among them holds the stream there until the test settles it (when its client has seen
   * what came before, the gateway read those chunks apart from the next ones).
   */
  rawChunks?: RawChunk[] | ((req: IncomingMessage) => RawChunk[]);
}

type RawChunk = string | Buffer | Promise<void>;

export interface FakeUpstreamOptions {
  /** Replaces Node's 5 s keep-alive timeout, which also closes a connection that never carried a request. */
  keepAliveMs?: number;
  /**
   * Answer every request with what the script says. Without one, the upstream answers with its built-in replies:
   * "fake: <the last user text>" in each family's real shapes, at each family's paths (`/gem*` for Gemini, a
   * segment before `/v1/` for messages, else chat), checking the family's key header, with `behaviour`'s faults.
   */
  script?: Script;
}

export const FAKE_UPSTREAM_KEY = "sk-upstream-test-0123456789abcdef";

/** Usage the fake reports besides output tokens: 11 in, 4 of them from the prompt cache (messages: 4 read, 3 written). */
export const CHAT_USAGE = { prompt_tokens: 11, prompt_tokens_details: { cached_tokens: 4 } };
export const MESSAGES_USAGE = { input_tokens: 11, cache_read_input_tokens: 4, cache_creation_input_tokens: 3 };
export const GEMINI_USAGE = { promptTokenCount: 11, cachedContentTokenCount: 4, thoughtsTokenCount: 2 };

const sse = (data: unknown, event?: string) => encodeEvent({ event, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Writes `piece` and resolves once Node handed it to the kernel (the write's callback). A socket destroyed after
 * that still delivers it: the fake has read the whole request, so the close is a FIN behind these bytes (not a reset)
 * and the peer reads them, then the close. Destroyed before, the bytes still queued in Node (a corked response holds
 * them to the end of the turn) would be dropped unsent.
 */
const written = (res: ServerResponse, piece: string | Buffer) => new Promise<void>((resolve) => res.write(piece, () => resolve()));

/** SSE text of chat chunks, each a data event, then `[DONE]` unless `done` is false. */
export function chatSse(chunks: unknown[], done = true): string {
  return encodeEvents([...chunks.map((data): SseOut => ({ data })), ...(done ? [{ data: "[DONE]", raw: true }] : [])]);
}

/** SSE text of Anthropic events: `event: <type>` + data. */
export const messagesSse = (events: { type: string }[]): string => encodeEvents(events.map((data) => ({ event: data.type, data })));

/** A chat chunk with one choice. */
export const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-s",
  object: "chat.completion.chunk",
  created: 1700000000,
  model: "upstream-model",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

/** A non-stream chat completion. */
export const completion = (message: Record<string, unknown>, finish = "stop", usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }) => ({
  id: "chatcmpl-s",
  object: "chat.completion",
  created: 1700000000,
  model: "upstream-model",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  usage,
});

/**
 * A chunked event stream sent in `writes`: each inner list leaves in one write, the first at once and each next one
 * when the test calls `next()` (so that what the upstream sends in one write is what the gateway reads at once).
 */
export function inWrites(writes: string[][]): { reply: ScriptedReply; next(): void } {
  const opens: (() => void)[] = [];
  const gates = writes.slice(1).map(() => new Promise<void>((resolve) => opens.push(resolve)));
  let opened = 0;
  return {
    reply: { chunks: writes.flatMap((group, i) => [...(i === 0 ? [] : [gates[i - 1]!]), ...group]) },
    next: () => opens[opened++]?.(),
  };
}

async function answer(res: ServerResponse, reply: ScriptedReply): Promise<void> {
  if (reply.continueFirst) res.writeContinue();
  if ("json" in reply) {
    const text = JSON.stringify(reply.json);
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    return void res.end(text);
  }
  res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", ...reply.headers });
  if (reply.after) {
    // The headers leave now; the body waits for the test.
    res.flushHeaders();
    await reply.after;
  }
  let sent: Promise<void> = Promise.resolve();
  for (const piece of reply.chunks) {
    if (res.destroyed) return;
    if (piece instanceof Promise) {
      await piece;
      continue;
    }
    sent = written(res, piece);
    if (reply.gapMs) await sleep(reply.gapMs);
  }
  if (reply.die) {
    // the chunks reach the gateway before the connection dies
    await sent;
    return void res.destroy();
  }
  res.end();
}

function lastUserText(body: { messages?: { role: string; content: unknown }[]; contents?: { role?: string; parts?: { text?: string }[] }[] }): string {
  if (body.contents) {
    const turn = [...body.contents].reverse().find((c) => c.role !== "model");
    return (turn?.parts ?? []).map((p) => p.text ?? "").join("");
  }
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  if (!last) return "";
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** The pieces of a reply: "fake: <text>" split in words, so tests can count chunks. */
export function replyPieces(text: string): string[] {
  return `fake: ${text}`.split(/(?<= )/);
}

function chatEvents(model: string, pieces: string[]): string[] {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1700000000, model };
  return [
    sse({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }),
    ...pieces.map((content) => sse({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    sse({ ...base, choices: [], usage: { ...CHAT_USAGE, completion_tokens: pieces.length, total_tokens: 11 + pieces.length } }),
    "data: [DONE]\n\n",
  ];
}

function messageEvents(model: string, pieces: string[]): string[] {
  return [
    sse({ type: "message_start", message: { id: "msg_fake", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...MESSAGES_USAGE, output_tokens: 1 } } }, "message_start"),
    sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
    ...pieces.map((text) => sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta")),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: pieces.length } }, "message_delta"),
    sse({ type: "message_stop" }, "message_stop"),
  ];
}

function geminiChunk(model: string, text: string, last: boolean, outputTokens: number) {
  return {
    candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    ...(last ? { usageMetadata: { ...GEMINI_USAGE, candidatesTokenCount: outputTokens, totalTokenCount: 11 + outputTokens + 2 } } : {}),
    modelVersion: model,
  };
}

function geminiEvents(model: string, pieces: string[]): string[] {
  return pieces.map((text, i) => `data: ${JSON.stringify(geminiChunk(model, text, i === pieces.length - 1, pieces.length))}\r\n\r\n`);
}

/** One 64 KiB content event of the family, for streams of many megabytes. */
function bulkEvent(isMessages: boolean): Buffer {
  const text = "x".repeat(64 * 1024 - 120);
  const data = isMessages ? { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } : { choices: [{ index: 0, delta: { content: text }, finish_reason: null }] };
  return Buffer.from(sse(data, isMessages ? "content_block_delta" : undefined));
}

/** The built-in replies: both wire formats with real SSE sequences, and the faults `behaviour` asks for. */
async function builtIn(req: IncomingMessage, res: ServerResponse, record: Received, behaviour: Behaviour, failures: { count: number }): Promise<void> {
  const { path } = record;
  // The gateway puts Gemini requests under /gemini (or a test's own segment, which starts with "gem").
  const isGemini = /^\/gem[^/]*\//.test(path);
  const isMessages = !isGemini && /^\/[^/]+\/v1\//.test(path);
  const presented = isGemini ? req.headers["x-goog-api-key"] : isMessages ? req.headers["x-api-key"] : req.headers.authorization?.replace(/^Bearer /, "");
  if (behaviour.headersDelayMs) await sleep(behaviour.headersDelayMs);
  if (res.destroyed) return;
  if (behaviour.fail && (behaviour.fail.times === undefined || failures.count < behaviour.fail.times)) {
    failures.count++;
    const body = JSON.stringify(behaviour.fail.body ?? { error: { message: "fake failure", type: "api_error" } });
    res.writeHead(behaviour.fail.status, { "content-type": "application/json", ...behaviour.fail.headers });
    return void res.end(body);
  }
  if (presented !== behaviour.key) {
    const body = isGemini
      ? { error: { code: 401, message: "API key not valid. Please pass a valid API key.", status: "UNAUTHENTICATED" } }
      : isMessages
      ? { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }
      : { error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } };
    res.writeHead(401, { "content-type": "application/json", "x-upstream-said": "no" });
    return void res.end(JSON.stringify(body));
  }
  if (isGemini && req.method === "GET" && /\/models$/.test(path)) {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ models: [{ name: "models/gemini-fake", displayName: "Gemini Fake", supportedGenerationMethods: ["generateContent"] }] }));
  }
  if (req.method === "GET" && path.endsWith("/v1/models")) {
    const body = isMessages
      ? { data: [{ type: "model", id: "claude-fake", display_name: "Claude Fake", created_at: "2025-02-01T00:00:00Z" }], has_more: false, first_id: "claude-fake", last_id: "claude-fake" }
      : { object: "list", data: [{ id: "gpt-fake", object: "model", created: 1700000000, owned_by: "fake" }] };
    res.writeHead(200, { "content-type": "application/json", "x-models-from": isMessages ? "messages" : "chat" });
    return void res.end(JSON.stringify(body));
  }
  const parsed = (record.body ?? {}) as { model?: string; stream?: boolean; messages?: { role: string; content: unknown }[]; contents?: { role?: string; parts?: { text?: string }[] }[] };
  const model = parsed.model ?? /\/models\/(.+):/.exec(path)?.[1] ?? "unknown";
  let stream = Boolean(parsed.stream);
  if (isGemini) {
    if (path.endsWith(":countTokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ totalTokens: 11 }));
    }
    stream = path.endsWith(":streamGenerateContent");
    if (!stream) {
      const pieces = replyPieces(lastUserText(parsed));
      res.writeHead(200, { "content-type": "application/json", ...behaviour.headers });
      return void res.end(JSON.stringify(geminiChunk(model, pieces.join(""), true, pieces.length)));
    }
  }
  if (path.endsWith("/count_tokens")) {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ input_tokens: 11 }));
  }
  if (!isGemini && !path.endsWith("/chat/completions") && !path.endsWith("/v1/messages")) {
    res.writeHead(200, { "content-type": "application/json", ...behaviour.headers });
    return void res.end(JSON.stringify({ passthrough: path, method: req.method }));
  }
  const pieces = replyPieces(lastUserText(parsed));
  if (!stream) {
    const text = pieces.join("");
    const body = isMessages
      ? { id: "msg_fake", type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { ...MESSAGES_USAGE, output_tokens: pieces.length } }
      : { id: "chatcmpl-fake", object: "chat.completion", created: 1700000000, model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { ...CHAT_USAGE, completion_tokens: pieces.length, total_tokens: 11 + pieces.length } };
    const json = JSON.stringify(body);
    if (behaviour.dieAfterChunks !== undefined) {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(json.length), ...behaviour.headers });
      await written(res, json.slice(0, 10));
      return void res.destroy();
    }
    res.writeHead(200, { "content-type": "application/json", ...behaviour.headers });
    return void res.end(json);
  }
  const events = isGemini ? geminiEvents(model, pieces) : isMessages ? messageEvents(model, pieces) : chatEvents(model, pieces);
  res.writeHead(200, { "content-type": "text/event-stream", ...behaviour.headers });
  if (behaviour.rawChunks) {
    const chunks = typeof behaviour.rawChunks === "function" ? behaviour.rawChunks(req) : behaviour.rawChunks;
    for (const piece of chunks) {
      if (piece instanceof Promise) {
        await piece;
        continue;
      }
      await written(res, piece);
      record.sentAt.push(performance.now());
    }
    return void res.destroy();
  }
  if (behaviour.bulkBytes) {
    const filler = bulkEvent(isMessages);
    for (let sent = 0; sent < behaviour.bulkBytes && !res.destroyed; sent += filler.length) {
      if (!res.write(filler)) await once(res, "drain");
    }
  }
  let sent: Promise<void> = Promise.resolve();
  for (let i = 0; i < events.length; i++) {
    if (res.destroyed) return;
    if (behaviour.dieAfterChunks === i) {
      // the chunks already written reach the gateway before the connection dies
      await sent;
      return void res.destroy();
    }
    if (behaviour.stallAfterChunks === i) return;
    if (i > 0 && behaviour.beforeEvent) await behaviour.beforeEvent(i);
    sent = written(res, events[i]!);
    record.sentAt.push(performance.now());
    if (behaviour.chunkDelayMs) await sleep(behaviour.chunkDelayMs);
  }
  res.end();
}

/**
 * The tests' one fake upstream, a real HTTP server on 127.0.0.1 that records every request it receives. It answers
 * with a test's script (exact bytes: tool calls in odd shapes, usage after the finish, events cut across writes,
 * errors), or with its built-in replies in every family's real shapes and the faults a test asks for (error
 * statuses, slow, stalled or bulky streams, death mid-stream or mid-event, late headers, a key it refuses).
 */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}) {
  const received: Received[] = [];
  const behaviour: Behaviour = { chunkDelayMs: 0, headersDelayMs: 0, headers: {}, key: FAKE_UPSTREAM_KEY };
  const failures = { count: 0 };
  let script = options.script;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: Json | undefined;
      try {
        const value: unknown = raw.length ? JSON.parse(raw.toString("utf8")) : undefined;
        body = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
      } catch {
        // passthrough endpoints may carry anything
      }
      const record: Received = { method: req.method!, url: req.url!, path: req.url!.split("?")[0]!, headers: req.headers, rawHeaders: req.rawHeaders, raw, body, sentAt: [] };
      received.push(record);
      res.on("close", () => {
        if (!res.writableFinished) record.abortedAt = Date.now();
      });
      const answered = script ? Promise.resolve(script(record)).then((reply) => answer(res, reply)) : builtIn(req, res, record, behaviour, failures);
      answered.catch(() => res.destroy());
    });
  });
  if (options.keepAliveMs !== undefined) server.keepAliveTimeout = options.keepAliveMs;
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    behaviour,
    /** Connections open to it now, whoever opened them. */
    openSockets: () => sockets.size,
    /** The last request received. */
    last: () => received[received.length - 1]!,
    /** Replaces the script for the next requests. */
    script(next: Script) {
      script = next;
    },
    // A test that failed half-way leaves its connection open: it is cut, not waited for.
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeUpstream = Awaited<ReturnType<typeof startFakeUpstream>>;
