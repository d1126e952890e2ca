import { execFile } from "node:child_process";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { once } from "node:events";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaptureStore } from "../src/dashboard/capture-store.js";
import { createLiveFeed } from "../src/dashboard/live-feed.js";
import { formatGroupCost, formatUsd } from "../src/request-log/format.js";
import { Secrets } from "../src/secrets.js";
import type { RequestRecord } from "../src/request-log/record.js";
import { assembleReply } from "../ui/src/assemble-reply.js";
import { curlCommand } from "../ui/src/curl-command.js";
import { arrayElements, parseJson, replyEvents } from "../ui/src/reply-events.js";
import { LOCAL_KEY, startTestGateway, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import { chatSse, chunk, FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { refusalOf, STRICT_KINDS } from "./helpers/strict/index.js";
import { rawRequest } from "./helpers/http.js";
import { closeAfterEach } from "./helpers/close-after-each.js";

const record = (id: string, status = 200): RequestRecord => ({
  time: new Date().toISOString(), requestId: id, method: "POST", path: "/v1/chat/completions", family: "chat", model: "m", status,
  durationMs: 1, ttfbMs: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: undefined, cacheWriteTokens: undefined, userAgent: "t", outcome: "complete",
});
const request0 = (body: string) => () => ({ method: "POST", path: "/v1/chat/completions", headers: {}, body });
const unchanged = (text: string) => text;
const opened = closeAfterEach();

describe("costs as the page and gateway stats write them", () => {
  it("a request's cost: unknown, nothing to price, free, below $0.0001, below a cent, dollars", () => {
    expect([null, undefined, 0, 0.000001, 0.0000999, 0.0001, 0.00042, 0.0099, 0.01, 1234.5].map(formatUsd)).toEqual([
      "unknown", "-", "$0.00", "<$0.0001", "<$0.0001", "$0.00010", "$0.00042", "$0.0099", "$0.01", "$1,234.50",
    ]);
  });

  it("a group's cost with unpriced requests is a lower bound, or unknown when that bound is below $0.0001", () => {
    expect(formatGroupCost(0.00002, 0)).toBe("<$0.0001");
    expect(formatGroupCost(0.0019, 2)).toBe("≥$0.0019");
    expect(formatGroupCost(0.0001, 1)).toBe("≥$0.00010");
    expect(formatGroupCost(0.00002, 1)).toBe("unknown");
    expect(formatGroupCost(0, 1)).toBe("unknown");
  });
});

describe("capture store limits", () => {
  it("keeps at most maxRequests, oldest dropped first", () => {
    const store = createCaptureStore("all", unchanged, { maxRequests: 3, maxBytes: 1_000_000 });
    for (let i = 0; i < 5; i++) store.start(request0(`body ${i}`))!.finish(record(`r${i}`));
    expect(["r0", "r1", "r2", "r3", "r4"].map((id) => store.get(id)?.request.body)).toEqual([undefined, undefined, "body 2", "body 3", "body 4"]);
    expect(store.stats()).toEqual({ requests: 3, bytes: 18 });
  });

  it("keeps at most maxBytes, and a single capture over it not at all", () => {
    const store = createCaptureStore("all", unchanged, { maxRequests: 100, maxBytes: 100 });
    for (let i = 0; i < 4; i++) {
      const recorder = store.start(request0("x".repeat(10)))!;
      recorder.response(200, {}, true);
      recorder.chunk(1, Buffer.from("y".repeat(30)));
      recorder.finish(record(`r${i}`));
    }
    expect(store.stats()).toEqual({ requests: 2, bytes: 80 });
    expect(store.get("r1")).toBeUndefined();
    expect(store.get("r3")?.chunks).toEqual([{ at: 1, text: "y".repeat(30) }]);
    const big = store.start(request0("z".repeat(101)))!;
    big.finish(record("big"));
    expect(store.get("big")).toBeUndefined();
  });

  it("errors mode keeps failed requests only; off keeps nothing", () => {
    const errors = createCaptureStore("errors", unchanged);
    errors.start(request0("ok"))!.finish(record("ok"));
    errors.start(request0("bad"))!.finish(record("bad", 502));
    expect(errors.get("ok")).toBeUndefined();
    expect(errors.get("bad")?.request.body).toBe("bad");
    expect(createCaptureStore("off", unchanged).start(request0("x"))).toBeUndefined();
  });
});

describe("captured credentials", () => {
  const pair = useGatewayPair();

  it("no key in any captured header or query, Gemini key= included", async () => {
    const { gateway } = await pair.start({ file: { capture: "all" } });
    await rawRequest(gateway.url, {
      method: "POST",
      path: `/gemini/v1beta/models/m:generateContent?key=${LOCAL_KEY}&alt=json`,
      headers: { "content-type": "application/json", "x-trace": "t" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
    });
    await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [] }) });
    await expect.poll(() => gateway.records.length).toBe(2);
    for (const { requestId } of gateway.records) {
      const res = await rawRequest(gateway.url, { path: `/ui/api/requests/${requestId}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } });
      expect(res.status).toBe(200);
      const { capture } = JSON.parse(res.body);
      expect(capture.response.status).toBe(200);
      expect(res.body.split(LOCAL_KEY).length - 1, res.body).toBe(0);
      expect(res.body).not.toContain("sk-upstream-test");
    }
    const gemini = JSON.parse((await rawRequest(gateway.url, { path: `/ui/api/requests/${gateway.records[0]!.requestId}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } })).body);
    expect(gemini.capture.request.path).toBe("/gemini/v1beta/models/m:generateContent?alt=json");
  });

  it("no upstream key an upstream echoes in its error, and no key a client pasted into its request", async () => {
    const echoing = opened(
      await startFakeUpstream({ script: (req) => ({
        status: 400,
        headers: { "x-echo": String(req.headers.authorization), location: `https://example.com/?k=${FAKE_UPSTREAM_KEY}` },
        json: { error: { message: `your key ${req.headers.authorization} is bad`, type: "invalid_request_error" } },
      }) }),
    );
    const gateway = opened(await startTestGateway(echoing.url, { file: { capture: "all" } }));
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: `my keys are ${LOCAL_KEY} and ${FAKE_UPSTREAM_KEY}` }] });
    const res = await rawRequest(gateway.url, { method: "POST", path: `/v1/chat/completions?key=${LOCAL_KEY}`, headers: { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json" }, body });
    // The client's own answer is the upstream's, as it came (SPEC 4): only what the gateway keeps is redacted.
    expect(res.status).toBe(400);
    await expect.poll(() => gateway.records.length).toBe(1);
    const detail = await rawRequest(gateway.url, { path: `/ui/api/requests/${gateway.records[0]!.requestId}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    const { capture } = JSON.parse(detail.body);
    expect(capture.chunks.map((c: { text: string }) => c.text).join("")).toBe('{"error":{"message":"your key Bearer *** is bad","type":"invalid_request_error"}}');
    expect(capture.request.body).toContain("my keys are *** and ***");
    // Headers are redacted by name; a key echoed in any other header, or a chat path's ?key=, is redacted by value.
    expect(capture.response.headers).toMatchObject({ "x-echo": "Bearer ***", location: "https://example.com/?k=***" });
    expect(capture.request.path).toBe("/v1/chat/completions?key=***");
    expect(detail.body).not.toContain(FAKE_UPSTREAM_KEY);
    expect(detail.body).not.toContain(LOCAL_KEY);
  });
});

describe("the capture of a reply that holds a key", () => {
  const secrets = new Secrets();
  secrets.remember("sk-secret-0123456789");

  it("is kept redacted, as one chunk when the key was cut across two; a reply without one keeps its chunks", () => {
    const store = createCaptureStore("all", (text) => secrets.redact(text));
    const cut = store.start(request0("send sk-secret-0123456789"))!;
    cut.response(400, {}, false);
    cut.chunk(1, Buffer.from('{"error":"bad sk-secret-01'));
    cut.chunk(2, Buffer.from('23456789 here"}'));
    cut.finish(record("cut", 400));
    expect(store.get("cut")).toMatchObject({ request: { body: "send ***" }, chunks: [{ at: 1, text: '{"error":"bad *** here"}' }] });
    const plain = store.start(request0("hi"))!;
    plain.chunk(1, Buffer.from("one "));
    plain.chunk(2, Buffer.from("two"));
    plain.finish(record("plain"));
    expect(store.get("plain")?.chunks).toEqual([{ at: 1, text: "one " }, { at: 2, text: "two" }]);
  });
});

describe("the live feed's ring of recent records", () => {
  it("keeps the newest 10,000, oldest first", () => {
    const feed = createLiveFeed();
    for (let i = 0; i < 10_005; i++) feed.sink(record(`r${i}`));
    const recent = feed.recent();
    expect(recent).toHaveLength(10_000);
    expect([recent[0]!.requestId, recent.at(-1)!.requestId]).toEqual(["r5", "r10004"]);
  });
});

describe("the live feed never holds a stalled page's data without bound", () => {
  it("queues at most 1 MiB for a page that stops reading, then tells it how many records it missed", async () => {
    const feed = createLiveFeed();
    let response: ServerResponse | undefined;
    const server = createServer((_req, res) => {
      res.writeHead(200);
      response = res;
      Readable.fromWeb(feed.follow() as import("node:stream/web").ReadableStream).pipe(res);
    }).listen(0, "127.0.0.1");
    await once(server, "listening");
    const client = request({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, path: "/" });
    client.end();
    const [incoming] = (await once(client, "response")) as [IncomingMessage];
    incoming.pause();
    const padded = { ...record("x"), userAgent: "u".repeat(4_000) };
    for (let i = 0; i < 3_000; i++) feed.sink({ ...padded, requestId: `r${i}` });
    // the socket buffers take some; what waits in the process stays at the bound
    expect(response!.writableLength).toBeLessThan(1024 * 1024 + 10_000);
    let text = "";
    incoming.setEncoding("utf8");
    incoming.on("data", (chunk: string) => (text += chunk));
    incoming.resume();
    await expect.poll(() => text.includes("\n")).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    feed.sink({ ...record("after") });
    await expect.poll(() => text.includes('"requestId":"after"')).toBe(true);
    const dropped = /\{"type":"dropped","count":(\d+)\}/.exec(text);
    expect(Number(dropped?.[1])).toBeGreaterThan(0);
    const delivered = (text.match(/"type":"record"/g) ?? []).length;
    expect(delivered - 1 + Number(dropped![1])).toBe(3_000);
    feed.close();
    server.close();
  });
});

describe("200 concurrent streams with a dashboard open and one stalled", () => {
  const pair = useGatewayPair();

  it("every stream completes with its full content; the reading page sees all 200 records", async () => {
    const { gateway, upstream } = await pair.start();
    upstream.behaviour.chunkDelayMs = 10;
    const { port } = new URL(gateway.url);
    const open = (paused: boolean) =>
      new Promise<IncomingMessage>((resolve) => {
        const req = request({ host: "127.0.0.1", port, path: "/ui/api/live", headers: { authorization: `Bearer ${LOCAL_KEY}` } }, (res) => {
          if (paused) res.pause();
          resolve(res);
        });
        req.end();
      });
    const stalled = await open(true);
    const reading = await open(false);
    let seen = "";
    reading.setEncoding("utf8");
    reading.on("data", (chunk: string) => (seen += chunk));
    const words = "alpha beta gamma delta epsilon";
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        rawRequest(gateway.url, {
          method: "POST",
          path: "/v1/chat/completions",
          headers: { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ model: `m${i}`, stream: true, messages: [{ role: "user", content: words }] }),
        }),
      ),
    );
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toContain("data: [DONE]");
      expect(reply.body.match(/"content":"[^"]*"/g)!.map((c) => c.slice(11, -1)).join("")).toBe(`fake: ${words}`);
    }
    await expect.poll(() => (seen.match(/"type":"record"/g) ?? []).length).toBe(200);
    stalled.destroy();
    reading.destroy();
  });
});

describe("a captured stream assembled into the reply the client ended up with", () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  // A chat-only upstream: the gateway translates messages, Responses and Gemini streams from these chat chunks.
  const stream = chatSse([
    chunk({ role: "assistant", content: "" }),
    chunk({ reasoning_content: "Need the file." }),
    chunk({ content: "Let me " }),
    chunk({ content: "look." }),
    chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read_file", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] }),
    chunk({}, "tool_calls"),
    { ...chunk({}), choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } },
  ]);

  beforeAll(async () => {
    upstream = await startFakeUpstream({ script: (request) => refusalOf(STRICT_KINDS.generic, request) ?? { chunks: [stream] } });
    gateway = await startTestGateway(undefined, { file: { capture: "all", upstreams: { local: { url: upstream.url, key: "none", formats: ["chat"] } } } });
  });
  afterAll(async () => {
    await gateway?.close(0);
    await upstream?.close();
  });

  const cases = [
    { format: "chat", path: "/v1/chat/completions", body: { model: "m", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] }, stop: "tool_calls", usage: { prompt_tokens: 20, completion_tokens: 9 } },
    { format: "messages", path: "/v1/messages", body: { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }, stop: "tool_use", usage: { output_tokens: 9 } },
    { format: "responses", path: "/v1/responses", body: { model: "m", stream: true, input: "hi" }, stop: "completed", usage: { output_tokens: 9 } },
    { format: "gemini", path: "/gemini/v1beta/models/m:streamGenerateContent?alt=sse", body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] }, stop: "STOP", usage: { candidatesTokenCount: 9 } },
    { format: "gemini", path: "/gemini/v1beta/models/m:streamGenerateContent", body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] }, stop: "STOP", usage: { candidatesTokenCount: 9 } },
  ];

  it.each(cases)("$format stream at $path: text, the tool call with its arguments, the stop reason and the usage", async ({ format, path, body, stop, usage }) => {
    const seen = gateway.records.length;
    const headers = { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json", "anthropic-version": "2023-06-01" };
    const res = await rawRequest(gateway.url, { method: "POST", path, headers, body: JSON.stringify(body) });
    expect(res.status, res.body).toBe(200);
    await expect.poll(() => gateway.records.length).toBe(seen + 1);
    const id = gateway.records.at(-1)!.requestId;
    const detail = JSON.parse((await rawRequest(gateway.url, { path: `/ui/api/requests/${id}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } })).body);
    const { capture } = detail;
    const payloads = capture.response.eventStream
      ? replyEvents(capture.chunks).events.map((e) => parseJson(e.data))
      : arrayElements(capture.chunks.map((c: { text: string }) => c.text).join(""))!;
    const reply = assembleReply(payloads)!;
    expect(reply.format).toBe(format);
    const calls = reply.parts.filter((p) => p.kind === "tool_call");
    expect(reply.parts.filter((p) => p.kind === "text")).toEqual([{ kind: "text", text: "Let me look." }]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: "read_file" });
    expect(JSON.parse((calls[0] as { arguments: string }).arguments)).toEqual({ path: "a.ts" });
    expect(reply.stopReason).toBe(stop);
    expect(reply.usage).toMatchObject(usage);
    expect(reply.error).toBeUndefined();
  });
});

describe("stream assembly of shapes the gateway does not make itself", () => {
  it("chat: a second call on index 0 with a new id is a new call; a whole call in one chunk", () => {
    const reply = assembleReply([
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "one", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "two", arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "b", function: { arguments: "1}" } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ])!;
    expect(reply.parts).toEqual([
      { kind: "tool_call", id: "a", name: "one", arguments: "{}" },
      { kind: "tool_call", id: "b", name: "two", arguments: '{"x":1}' },
    ]);
  });

  it("messages: thinking, usage merged from message_start and message_delta, an error event's message", () => {
    const reply = assembleReply([
      { type: "message_start", message: { usage: { input_tokens: 5, cache_read_input_tokens: 2, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "hi" } },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } },
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    ])!;
    expect(reply).toEqual({
      format: "messages",
      parts: [{ kind: "reasoning", text: "hmm" }, { kind: "text", text: "hi" }],
      stopReason: "end_turn",
      usage: { input_tokens: 5, cache_read_input_tokens: 2, output_tokens: 7 },
      error: "Overloaded",
    });
  });

  it("responses: a failed response's error; nothing recognisable is no reply", () => {
    const reply = assembleReply([{ type: "response.failed", response: { status: "failed", error: { code: "server_error", message: "upstream died" } } }])!;
    expect([reply.format, reply.stopReason, reply.error]).toEqual(["responses", "failed", "upstream died"]);
    expect(assembleReply(["[DONE]", { hello: 1 }])).toBeUndefined();
  });
});

describe("copy as curl", () => {
  const request = {
    method: "POST",
    path: "/v1/messages?beta=true",
    headers: { host: "127.0.0.1:8484", "content-length": "20", "accept-encoding": "gzip", "x-api-key": "[redacted]", cookie: "[redacted]", "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: `{"messages":[{"role":"user","content":"it's"}]}`,
  };

  it("puts the variable gateway env sets for the family where a key was, leaves out other credentials and what curl sets itself", () => {
    expect(curlCommand(request, "http://127.0.0.1:8484", "messages")).toBe(
      [
        "curl -sS -X POST 'http://127.0.0.1:8484/v1/messages?beta=true'",
        `-H "x-api-key: $ANTHROPIC_API_KEY"`,
        "-H 'anthropic-version: 2023-06-01'",
        "-H 'content-type: application/json'",
        `--data-raw '{"messages":[{"role":"user","content":"it'\\''s"}]}'`,
      ].join(" \\\n  "),
    );
  });

  it("a Gemini request whose key= was removed from the path gets the family's key header", () => {
    const command = curlCommand({ method: "POST", path: "/gemini/v1beta/models/m:generateContent?alt=json", headers: {}, body: undefined }, "http://127.0.0.1:1", "gemini");
    expect(command).toBe(`curl -sS -X POST 'http://127.0.0.1:1/gemini/v1beta/models/m:generateContent?alt=json' \\\n  -H "x-goog-api-key: $GEMINI_API_KEY"`);
  });

  it("run by a shell against the gateway, it gets the same reply as the captured request", async () => {
    const run = promisify(execFile);
    const gateway = await startTestGateway("echo", { file: { capture: "all" } });
    try {
      const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "it's a test" }] });
      const first = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json" }, body });
      await expect.poll(() => gateway.records.length).toBe(1);
      const id = gateway.records[0]!.requestId;
      const { capture } = JSON.parse((await rawRequest(gateway.url, { path: `/ui/api/requests/${id}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } })).body);
      const command = curlCommand(capture.request, gateway.url, "chat");
      expect(command).not.toContain(LOCAL_KEY);
      // The gateway runs in this process: the shell must not block it.
      const again = (await run("sh", ["-c", command], { env: { PATH: process.env.PATH, OPENAI_API_KEY: LOCAL_KEY } })).stdout;
      const strip = (text: string) => JSON.parse(text).choices;
      expect(strip(again)).toEqual(strip(first.body));
    } finally {
      await gateway.close(0);
    }
  });
});
