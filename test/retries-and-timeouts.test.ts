import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

let upstream: FakeUpstream;
let gateway: TestGateway;
const pair = useGatewayPair();
/** Only for the test without an upstream; the pair closes its own. */
let lone: TestGateway | undefined;
afterEach(async () => {
  await lone?.close(0);
  lone = undefined;
});

const chat = (gw: TestGateway) =>
  rawRequest(gw.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });

describe("retries before the first byte", () => {
  it("turns a 529 then a 200 into one 200, with two requests upstream", async () => {
    ({ upstream, gateway } = await pair.start());
    upstream.behaviour.fail = { status: 529, times: 1 };
    const res = await chat(gateway);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).choices[0].message.content).toBe("fake: hi");
    expect(upstream.received).toHaveLength(2);
    expect(upstream.received[1]!.raw.equals(upstream.received[0]!.raw)).toBe(true);
  });

  it("passes a 401 through untouched and does not retry it", async () => {
    ({ upstream, gateway } = await pair.start());
    upstream.behaviour.key = "other";
    const res = await chat(gateway);
    expect(res.status).toBe(401);
    expect(upstream.received).toHaveLength(1);
  });

  it("waits for retry-after: 1 before retrying a 429", async () => {
    ({ upstream, gateway } = await pair.start());
    upstream.behaviour.fail = { status: 429, times: 1, headers: { "retry-after": "1" } };
    const started = Date.now();
    const res = await chat(gateway);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(upstream.received).toHaveLength(2);
  });

  it("gives a retry-after over 30 s to the client at once", async () => {
    ({ upstream, gateway } = await pair.start());
    upstream.behaviour.fail = { status: 429, times: 1, headers: { "retry-after": "120" } };
    const res = await chat(gateway);
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("120");
    expect(upstream.received).toHaveLength(1);
  });

  it("passes the last upstream answer through when the retries run out", async () => {
    ({ upstream, gateway } = await pair.start({ file: { retries: 1 } }));
    upstream.behaviour.fail = { status: 503, body: { error: { message: "overloaded" } } };
    const res = await chat(gateway);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({ error: { message: "overloaded" } });
    expect(upstream.received).toHaveLength(2);
  });

  it("retries a refused connection, then answers 502 in the family's shape", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    lone = await startTestGateway(`http://127.0.0.1:${port}`, { file: { retries: 1 } });
    const res = await rawRequest(lone.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 1, messages: [] }) });
    expect(res.status).toBe(502);
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    expect(JSON.parse(res.body)).toEqual({
      type: "error",
      error: { type: "api_error", message: `The upstream http://127.0.0.1:${port} refused the connection. Start the server on this machine, or fix the port in the upstream URL.` },
    });
  });
});

describe("timeouts", () => {
  it("answers 504 when the first byte does not come in time", async () => {
    ({ upstream, gateway } = await pair.start({ file: { timeouts: { firstByteMs: 300 }, retries: 0 } }));
    upstream.behaviour.headersDelayMs = 2_000;
    const res = await chat(gateway);
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body).error).toMatchObject({ type: "timeout_error", code: "upstream_timeout" });
  });

  it("ends a stream that goes silent with a timeout error event", async () => {
    ({ upstream, gateway } = await pair.start({ file: { timeouts: { idleMs: 300 } } }));
    upstream.behaviour.stallAfterChunks = 2;
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 1, stream: true, messages: [{ role: "user", content: "x y" }] }) });
    expect(res.status).toBe(200);
    expect(res.body.endsWith('event: error\ndata: {"type":"error","error":{"type":"timeout_error","message":"The upstream stopped sending in the middle of the reply (idle timeout). Try again."}}\n\n')).toBe(true);
  });
});

describe("graceful shutdown", () => {
  it("ends the streams still open when the grace time runs out with exactly one api_error event each, both families", async () => {
    ({ upstream, gateway } = await pair.start());
    upstream.behaviour.chunkDelayMs = 500;
    const words = "one two three four five six seven eight";
    const streams = [
      rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: words }] }) }),
      rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 9, stream: true, messages: [{ role: "user", content: words }] }) }),
    ];
    await expect.poll(() => upstream.received.length === 2 && upstream.received.every((r) => r.sentAt.length > 0)).toBe(true);
    const closedAt = Date.now();
    await gateway.close(300);
    expect(Date.now() - closedAt).toBeLessThan(2_000);
    const [chatReply, messagesReply] = await Promise.all(streams);
    const message = "The gateway is shutting down; the request was cut short. Retry it.";
    expect(chatReply!.status).toBe(200);
    expect(chatReply!.body).not.toContain("[DONE]");
    expect(chatReply!.body.match(/"error"/g)).toHaveLength(1);
    expect(chatReply!.body.endsWith(`data: {"error":{"message":"${message}","type":"api_error","param":null,"code":"upstream_error"}}\n\n`)).toBe(true);
    expect(messagesReply!.status).toBe(200);
    expect(messagesReply!.body).not.toContain("message_stop");
    expect(messagesReply!.body.match(/event: error/g)).toHaveLength(1);
    expect(messagesReply!.body.endsWith(`event: error\ndata: {"type":"error","error":{"type":"api_error","message":"${message}"}}\n\n`)).toBe(true);
    expect(upstream.received.every((r) => r.abortedAt !== undefined)).toBe(true);
  });
});
