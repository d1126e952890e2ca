import { connect } from "node:net";
import { beforeEach, describe, expect, it } from "vitest";
import { type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

let upstream: FakeUpstream;
let gateway: TestGateway;
const pair = useGatewayPair();
beforeEach(async () => ({ upstream, gateway } = await pair.start()));

async function stillHealthy() {
  const health = await rawRequest(gateway.url, { path: "/health" });
  expect(health.status).toBe(200);
}

/** Writes raw bytes on a fresh socket and returns everything the server sent until it closed (or a pause). */
function rawExchange(bytes: string | Buffer, settleMs = 500): Promise<string> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(bytes));
    let data = "";
    const done = () => {
      socket.destroy();
      resolve(data);
    };
    const timer = setTimeout(done, settleMs);
    socket.on("data", (c) => (data += c.toString()));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(data);
    });
    socket.on("error", () => undefined);
  });
}

/** Sends request headers, then the body one byte every `everyMs`; resolves with what the server sent and whether it closed first. */
function slowBody(url: string, head: string, body: string, everyMs: number): Promise<{ answer: string; closedByServer: boolean; elapsedMs: number }> {
  const { port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    let answer = "";
    let sent = 0;
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(head));
    const drip = setInterval(() => {
      if (sent < body.length) socket.write(body[sent++]!);
      else {
        clearInterval(drip);
        socket.destroy();
        resolve({ answer, closedByServer: false, elapsedMs: Date.now() - started });
      }
    }, everyMs);
    socket.on("data", (c) => (answer += c.toString()));
    socket.on("close", () => {
      clearInterval(drip);
      resolve({ answer, closedByServer: true, elapsedMs: Date.now() - started });
    });
    socket.on("error", () => undefined);
  });
}

describe("hostile input", () => {
  it.each([
    ["messages", `x-api-key: ${LOCAL_KEY}\r\nanthropic-version: 2023-06-01`, "/v1/messages", '{"type":"error","error":{"type":"timeout_error","message":"The request body did not arrive within 1 s. Send the whole request at once, then retry."}}'],
    ["chat", `authorization: Bearer ${LOCAL_KEY}`, "/v1/chat/completions", '{"error":{"message":"The request body did not arrive within 1 s. Send the whole request at once, then retry.","type":"timeout_error","param":null,"code":"request_timeout"}}'],
  ])("cuts off a %s body sent one byte per 200 ms with 408 after the body deadline, and closes", async (_family, auth, path, errorBody) => {
    const slow = await startTestGateway(upstream.url, { bodyTimeoutMs: 1_000 });
    try {
      const body = JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "slow".repeat(10) }] });
      const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
      const { answer, closedByServer, elapsedMs } = await slowBody(slow.url, head, body, 200);
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer.toLowerCase()).toContain("\r\nconnection: close\r\n");
      expect(answer.split("\r\n\r\n")[1]).toBe(errorBody);
      expect(closedByServer).toBe(true);
      expect(elapsedMs).toBeLessThan(body.length * 200);
      expect(upstream.received).toHaveLength(0);
      const health = await rawRequest(slow.url, { path: "/health" });
      expect(health.status).toBe(200);
    } finally {
      await slow.close(0);
    }
  });

  it("answers oversized headers with 431 and keeps serving", async () => {
    const answer = await rawExchange(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(answer.startsWith("HTTP/1.1 431")).toBe(true);
    await stillHealthy();
  });

  it("survives a body shorter than its content-length (client gives up)", async () => {
    const answer = await rawExchange(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${LOCAL_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":"m"`, 300);
    expect(answer).toBe("");
    expect(upstream.received).toHaveLength(0);
    await stillHealthy();
  });

  it("rejects a body longer than its content-length as a malformed next request", async () => {
    const body = JSON.stringify({ model: "m", messages: [] });
    const answer = await rawExchange(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${LOCAL_KEY}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n${body}`);
    // The first 5 bytes are the body; the rest arrives in the same packet and parses as a broken request, so
    // Node's parser answers 400 and closes (sometimes after our own 400 invalid_json for the 5-byte body).
    expect(answer.startsWith("HTTP/1.1 400")).toBe(true);
    expect(answer).toContain("HTTP/1.1 400 Bad Request");
    expect(upstream.received).toHaveLength(0);
    await stillHealthy();
  });

  it("forwards invalid UTF-8 inside a JSON string byte for byte", async () => {
    const body = Buffer.concat([Buffer.from('{"model":"m","messages":[{"role":"user","content":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}]}')]);
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body });
    expect(res.status).toBe(200);
    expect(upstream.last().raw.equals(body)).toBe(true);
  });

  it("answers deeply nested JSON with 400, not a crash", async () => {
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: deep });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.type).toBe("invalid_request_error");
    await stillHealthy();
  });

  it("a query whose escapes do not decode never takes the gateway down, capture on or not, and goes upstream as it came", async () => {
    const capturing = await startTestGateway(upstream.url, { file: { capture: "all" } });
    try {
      const refused = await rawRequest(capturing.url, { path: "/v1beta/x?%zz&key=", headers: ["host", "evil.example"] });
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.status).toBe("PERMISSION_DENIED");
      const body = JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] });
      const res = await rawRequest(capturing.url, { method: "POST", path: `/v1beta/models/g:generateContent?%zz=1&key=${LOCAL_KEY}`, headers: { "content-type": "application/json" }, body });
      expect(res.status).toBe(200);
      expect(upstream.last().url).toMatch(/:generateContent\?%zz=1$/);
      expect((await rawRequest(capturing.url, { path: "/health" })).status).toBe(200);
    } finally {
      await capturing.close(0);
    }
  });

  it.each(["k%65y", "%6Bey", "%6b%65%79"])("takes the Gemini key spelled %s as the key it is, and never sends it upstream", async (name) => {
    const body = JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] });
    const res = await rawRequest(gateway.url, { method: "POST", path: `/v1beta/models/g:generateContent?${name}=${LOCAL_KEY}&alt=json`, headers: { "content-type": "application/json" }, body });
    expect(res.status).toBe(200);
    expect(upstream.last().url).toMatch(/:generateContent\?alt=json$/);
  });

  it("passes other methods under /v1/ through, and 404s them elsewhere", async () => {
    const del = await rawRequest(gateway.url, { method: "DELETE", path: "/v1/files/abc", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    expect(del.status).toBe(200);
    expect(upstream.last()).toMatchObject({ method: "DELETE", url: "/v1/files/abc" });
    const put = await rawRequest(gateway.url, { method: "PUT", path: "/admin", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    expect(put.status).toBe(404);
  });
});

describe("load", () => {
  it("completes 200 concurrent streams of both families with the right content, and memory settles", async () => {
    const rssBefore = process.memoryUsage().rss;
    const one = async (i: number) => {
      const isChat = i % 2 === 0;
      const body = isChat
        ? { model: "m", stream: true, messages: [{ role: "user", content: `req ${i}` }] }
        : { model: "m", max_tokens: 5, stream: true, messages: [{ role: "user", content: `req ${i}` }] };
      const res = await fetch(`${gateway.url}${isChat ? "/v1/chat/completions" : "/v1/messages"}`, { method: "POST", headers: isChat ? chatHeaders(LOCAL_KEY) : messagesHeaders(LOCAL_KEY), body: JSON.stringify(body) });
      const text = await res.text();
      const pieces = isChat
        ? [...text.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join("")
        : [...text.matchAll(/"text_delta","text":"([^"]*)"/g)].map((m) => m[1]).join("");
      return pieces === `fake: req ${i}`;
    };
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => one(i)));
    expect(results.every(Boolean)).toBe(true);
    expect(gateway.records.filter((r) => r.outcome === "complete")).toHaveLength(200);
    // gateway, upstream and clients share this process: 200 finished streams must not leave more than ~50 MB behind
    await expect.poll(() => (global.gc?.(), process.memoryUsage().rss - rssBefore)).toBeLessThan(50 * 1024 * 1024);
  });
});
