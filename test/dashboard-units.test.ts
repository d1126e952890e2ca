import { Readable } from "node:stream";
import { once } from "node:events";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createCaptureStore } from "../src/dashboard/capture-store.js";
import { createLiveFeed } from "../src/dashboard/live-feed.js";
import type { RequestRecord } from "../src/request-log/record.js";
import { LOCAL_KEY, useGatewayPair } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";

const record = (id: string, status = 200): RequestRecord => ({
  time: new Date().toISOString(), requestId: id, method: "POST", path: "/v1/chat/completions", family: "chat", model: "m", status,
  durationMs: 1, ttfbMs: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: undefined, cacheWriteTokens: undefined, userAgent: "t", outcome: "complete",
});
const request0 = (body: string) => () => ({ method: "POST", path: "/v1/chat/completions", headers: {}, body });

describe("capture store limits", () => {
  it("keeps at most maxRequests, oldest dropped first", () => {
    const store = createCaptureStore("all", { maxRequests: 3, maxBytes: 1_000_000 });
    for (let i = 0; i < 5; i++) store.start(request0(`body ${i}`))!.finish(record(`r${i}`));
    expect(["r0", "r1", "r2", "r3", "r4"].map((id) => store.get(id)?.request.body)).toEqual([undefined, undefined, "body 2", "body 3", "body 4"]);
    expect(store.stats()).toEqual({ requests: 3, bytes: 18 });
  });

  it("keeps at most maxBytes, and a single capture over it not at all", () => {
    const store = createCaptureStore("all", { maxRequests: 100, maxBytes: 100 });
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
    const errors = createCaptureStore("errors");
    errors.start(request0("ok"))!.finish(record("ok"));
    errors.start(request0("bad"))!.finish(record("bad", 502));
    expect(errors.get("ok")).toBeUndefined();
    expect(errors.get("bad")?.request.body).toBe("bad");
    expect(createCaptureStore("off").start(request0("x"))).toBeUndefined();
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
