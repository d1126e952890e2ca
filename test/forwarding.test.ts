import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY, inWrites, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, chunkFrames, messagesHeaders, nextOnEach, rawPost, rawRequest } from "./helpers/http.js";

let upstream: FakeUpstream;
let gateway: TestGateway;
const pair = useGatewayPair();
const opened = closeAfterEach();
const start = async (options: Parameters<typeof pair.start>[0] = {}) => ({ upstream, gateway } = await pair.start(options));

/** Reads a streamed response, noting when each chunk arrived. */
async function readChunks(response: Response): Promise<{ text: string; times: number[] }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const times: number[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    times.push(performance.now());
    text += decoder.decode(value, { stream: true });
  }
  return { text, times };
}

describe("key swap and header policy", () => {
  it("replaces the client's credentials, drops hop-by-hop and proxy headers, keeps the rest", async () => {
    await start();
    const res = await rawRequest(gateway.url, {
      method: "POST",
      path: "/v1/messages",
      headers: {
        ...messagesHeaders(LOCAL_KEY),
        authorization: `Bearer ${LOCAL_KEY}`,
        "anthropic-beta": "prompt-caching-2024-07-31",
        "user-agent": "claude-cli/1.0",
        "x-custom": "kept",
        connection: "keep-alive, x-drop-me",
        "x-drop-me": "gone",
        "keep-alive": "timeout=5",
        "x-forwarded-for": "10.0.0.1",
        forwarded: "for=10.0.0.1",
        cookie: "session=local",
        "proxy-authorization": "Basic abc",
      },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [] }),
    });
    expect(res.status).toBe(200);
    const seen = upstream.last().headers;
    expect(seen["x-api-key"]).toBe(FAKE_UPSTREAM_KEY);
    expect(seen.authorization).toBeUndefined();
    expect(seen["anthropic-beta"]).toBe("prompt-caching-2024-07-31");
    expect(seen["user-agent"]).toBe("claude-cli/1.0");
    expect(seen["x-custom"]).toBe("kept");
    expect(seen.host).toBe(`127.0.0.1:${upstream.port}`);
    for (const dropped of ["x-drop-me", "keep-alive", "x-forwarded-for", "forwarded", "cookie", "proxy-authorization"]) {
      expect(seen[dropped], dropped).toBeUndefined();
    }
    expect(upstream.last().rawHeaders.join("\n")).not.toContain(LOCAL_KEY);
  });

  it("passes upstream response headers back, minus hop-by-hop ones", async () => {
    await start();
    upstream.behaviour.headers = { "x-ratelimit-remaining": "42", "request-id": "up-123" };
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
    expect(res.headers["x-ratelimit-remaining"]).toBe("42");
    expect(res.headers["request-id"]).toBe("up-123");
  });
});

describe("bytes", () => {
  it("forwards the body byte for byte, unknown fields and odd spacing included", async () => {
    await start();
    const body = '{ "model":"m",\n  "messages":[{"role":"user","content":"héllo \\u00e9 🚀"}], "x_unknown": {"keep": [1, 2.50, null]} }';
    await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body });
    expect(upstream.last().raw.equals(Buffer.from(body))).toBe(true);
  });

  it("keeps the query string exactly as sent", async () => {
    await start();
    await rawRequest(gateway.url, { method: "POST", path: "/v1/messages?beta=true&x='a'%20c&y=%7e~&z", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 1, messages: [] }) });
    expect(upstream.last().url).toBe("/anthropic/v1/messages?beta=true&x='a'%20c&y=%7e~&z");
  });

  it("passes upstream errors through with status, headers and body", async () => {
    await start();
    upstream.behaviour.fail = { status: 400, body: { error: { message: "bad model", type: "invalid_request_error" } }, headers: { "x-up": "1" } };
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
    expect(res.status).toBe(400);
    expect(res.headers["x-up"]).toBe("1");
    expect(JSON.parse(res.body)).toEqual({ error: { message: "bad model", type: "invalid_request_error" } });
    expect(upstream.received).toHaveLength(1);
  });
});

describe("streaming", () => {
  it("delivers each chunk as it is produced (100 ms apart), not at the end", async () => {
    await start();
    upstream.behaviour.chunkDelayMs = 100;
    const started = performance.now();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: chatHeaders(LOCAL_KEY),
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "a b c d" }] }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const { text, times } = await readChunks(response);
    const total = times[times.length - 1]! - started;
    expect(total).toBeGreaterThan(700);
    expect(times[0]! - started).toBeLessThan(total / 3);
    expect(times.length).toBeGreaterThanOrEqual(8);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("writes what one upstream read brought in two writes at most: the first event at once, the other nineteen together", async () => {
    // undici hands over each chunk of a chunked body on its own; written one by one, they were twenty writes.
    const events = Array.from({ length: 21 }, (_, i) => `data: {"n":${i},"text":"piece ${i}"}\n\n`);
    const writes = [events.slice(0, 1), events.slice(1, 21), ["data: [DONE]\n\n"]];
    const raw = inWrites(writes);
    const upstream = opened(await startFakeUpstream({ script: () => raw.reply }));
    const alone = opened(await startTestGateway(upstream.url));
    const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
    // Each next write goes once the client has the one before, so the middle one arrives while the stream flows.
    const response = await rawPost(alone.url, "/v1/chat/completions", chatHeaders(LOCAL_KEY), body, nextOnEach(['"n":0,', '"n":20,'], raw.next));
    // The first event of a read leaves at once, the rest of that read at the end of the same turn, together.
    expect(chunkFrames(response)).toEqual([events[0], events[1], events.slice(2).join(""), "data: [DONE]\n\n"]);
  });

  it.each([
    ["chat", "/v1/chat/completions", chatHeaders(LOCAL_KEY), { model: "m", stream: true, messages: [{ role: "user", content: "a b c d e" }] }, 'data: {"error":{"message":"The upstream connection broke in the middle of the reply. Try again.","type":"api_error","param":null,"code":"upstream_error"}}\n\n'],
    ["messages", "/v1/messages", messagesHeaders(LOCAL_KEY), { model: "m", max_tokens: 9, stream: true, messages: [{ role: "user", content: "a b c d e" }] }, 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"The upstream connection broke in the middle of the reply. Try again."}}\n\n'],
  ])("ends a %s stream that dies after 3 chunks with exactly one error event", async (_family, path, headers, body, errorEvent) => {
    await start();
    upstream.behaviour.dieAfterChunks = 3;
    const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    const { text } = await readChunks(response);
    expect(text.endsWith(errorEvent)).toBe(true);
    expect(text.split(errorEvent)).toHaveLength(2);
    expect(text).not.toContain("[DONE]");
    expect(text.match(/^data: /gm)).toHaveLength(4);
  });

  it("never delivers a cut-short non-stream body as a complete 200", async () => {
    await start();
    upstream.behaviour.dieAfterChunks = 0;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
    await expect(response.text()).rejects.toThrow();
  });
});

describe("client abort", () => {
  it("closes the upstream request when the client aborts mid-stream", async () => {
    await start();
    upstream.behaviour.chunkDelayMs = 300;
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: messagesHeaders(LOCAL_KEY),
      body: JSON.stringify({ model: "m", max_tokens: 9, stream: true, messages: [{ role: "user", content: "a b c d e f g h" }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    const abortedAt = Date.now();
    controller.abort();
    await expect.poll(() => upstream.last().abortedAt).toBeDefined();
    expect(upstream.last().abortedAt! - abortedAt).toBeLessThan(500);
  });

  it("closes the upstream request when the client aborts before the upstream sent headers", async () => {
    await start();
    upstream.behaviour.headersDelayMs = 5_000;
    const controller = new AbortController();
    const pending = fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }), signal: controller.signal }).catch(() => undefined);
    await expect.poll(() => upstream.received.length).toBe(1);
    const abortedAt = Date.now();
    controller.abort();
    await pending;
    await expect.poll(() => upstream.last().abortedAt).toBeDefined();
    expect(upstream.last().abortedAt! - abortedAt).toBeLessThan(500);
    expect(gateway.records.at(-1)).toMatchObject({ status: 499, outcome: "client_closed" });
  });
});
