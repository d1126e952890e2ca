import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, useGatewayPair, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

let upstream: FakeUpstream;
let gateway: TestGateway;
const pair = useGatewayPair();
const start = async (options: Parameters<typeof pair.start>[0] = {}) => ({ upstream, gateway } = await pair.start(options));

const chatBody = JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] });
const messagesBody = JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] });

function expectRequestId(headers: Record<string, unknown>) {
  expect(headers["x-request-id"]).toMatch(/^req_[0-9a-f]{12}[0-9a-z]{8}$/);
}

describe("host guard", () => {
  it("refuses a non-loopback Host with 403 in the chat shape", async () => {
    await start();
    const res = await rawRequest(gateway.url, { path: "/health", headers: { host: "evil.example:8484" } });
    expect(res.status).toBe(403);
    expectRequestId(res.headers);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: 'Host "evil.example:8484" is not allowed: the gateway only answers requests addressed to localhost, 127.0.0.1 or [::1]. Use http://127.0.0.1:<port> as the base URL.',
        type: "permission_error",
        param: null,
        code: "host_not_allowed",
      },
    });
    expect(upstream.received).toHaveLength(0);
  });

  it.each(["localhost", "127.0.0.1:1234", "[::1]:8484", "LOCALHOST:1"])("accepts Host %s", async (host) => {
    await start();
    const res = await rawRequest(gateway.url, { path: "/health", headers: { host } });
    expect(res.status).toBe(200);
  });
});

describe("origin guard", () => {
  it("refuses a request carrying an unknown Origin, even with the right key", async () => {
    await start();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: { ...chatHeaders(LOCAL_KEY), origin: "https://evil.example" }, body: chatBody });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error).toMatchObject({ type: "permission_error", code: "origin_not_allowed", param: null });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect(upstream.received).toHaveLength(0);
  });

  it("answers an allowed origin's preflight without a key, and tags its responses", async () => {
    await start({ flags: { cors: ["http://localhost:3000"] } });
    const preflight = await rawRequest(gateway.url, {
      method: "OPTIONS",
      path: "/v1/chat/completions",
      headers: { origin: "http://localhost:3000", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    expect(preflight.headers["access-control-allow-methods"]).toBe("GET, POST, OPTIONS");
    expect(preflight.headers["access-control-allow-headers"]).toBe("authorization, content-type");
    expect(preflight.headers.vary).toBe("origin");
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: { ...chatHeaders(LOCAL_KEY), origin: "http://localhost:3000" }, body: chatBody });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
  });
});

describe("local key", () => {
  it("401s a chat request without a key", async () => {
    await start();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: { "content-type": "application/json" }, body: chatBody });
    expect(res.status).toBe(401);
    expectRequestId(res.headers);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: "Missing or wrong local key. Send Authorization: Bearer <key> with the key printed by `gateway env`.",
        type: "authentication_error",
        param: null,
        code: "invalid_api_key",
      },
    });
  });

  it("401s a messages request with a wrong key, in the messages shape", async () => {
    await start();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders("gw-wrong"), body: messagesBody });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "Missing or wrong local key. Send x-api-key: <key> with the key printed by `gateway env`." },
    });
  });

  it("accepts Authorization: Bearer on the messages family", async () => {
    await start();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/anthropic/v1/messages", headers: { authorization: `Bearer ${LOCAL_KEY}`, "anthropic-version": "2023-06-01", "content-type": "application/json" }, body: messagesBody });
    expect(res.status).toBe(200);
  });

  it("never forwards the upstream's 401 as the local key's fault: the upstream answer passes through as is", async () => {
    await start();
    upstream.behaviour.key = "something-else";
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: chatBody });
    expect(res.status).toBe(401);
    expect(res.headers["x-upstream-said"]).toBe("no");
    expect(JSON.parse(res.body).error.message).toBe("Incorrect API key provided");
  });
});

describe("version header", () => {
  it("400s a messages request without anthropic-version", async () => {
    await start();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { "x-api-key": LOCAL_KEY, "content-type": "application/json" }, body: messagesBody });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "Missing anthropic-version header. Send anthropic-version: 2023-06-01 (any version is accepted)." },
    });
  });

  it("accepts vendor-version as an alias and forwards it as anthropic-version", async () => {
    await start();
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { "x-api-key": LOCAL_KEY, "vendor-version": "2099-01-01", "content-type": "application/json" }, body: messagesBody });
    expect(res.status).toBe(200);
    expect(upstream.last().headers["anthropic-version"]).toBe("2099-01-01");
    expect(upstream.last().headers["vendor-version"]).toBeUndefined();
  });

  it("sends the pinned version when the config sets one", async () => {
    await start({ file: { anthropicVersion: "2023-06-01" } });
    await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(LOCAL_KEY), "anthropic-version": "2031-01-01" }, body: messagesBody });
    expect(upstream.last().headers["anthropic-version"]).toBe("2023-06-01");
  });
});

describe("body checks", () => {
  const post = (path: string, headers: Record<string, string>, body: string | Buffer) => rawRequest(gateway.url, { method: "POST", path, headers, body });

  it("415s a non-JSON content type", async () => {
    await start();
    const res = await post("/v1/chat/completions", { ...chatHeaders(LOCAL_KEY), "content-type": "text/plain" }, chatBody);
    expect(res.status).toBe(415);
    expect(JSON.parse(res.body)).toEqual({ error: { message: "Content-Type must be application/json.", type: "invalid_request_error", param: null, code: "unsupported_media_type" } });
  });

  it("accepts content-type parameters", async () => {
    await start();
    const res = await post("/v1/chat/completions", { ...chatHeaders(LOCAL_KEY), "content-type": "application/json; charset=utf-8" }, chatBody);
    expect(res.status).toBe(200);
  });

  it("400s malformed JSON and non-object JSON", async () => {
    await start();
    for (const body of ['{"model": "m", ', "[1,2]", "\"text\""]) {
      const res = await post("/v1/chat/completions", chatHeaders(LOCAL_KEY), body);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error).toMatchObject({ type: "invalid_request_error", code: "invalid_json", param: null });
    }
    expect(upstream.received).toHaveLength(0);
  });

  it("400s a missing or mistyped field, naming it", async () => {
    await start();
    const missing = await post("/v1/chat/completions", chatHeaders(LOCAL_KEY), JSON.stringify({ messages: [] }));
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body)).toEqual({ error: { message: 'Missing required field "model": it must be a string.', type: "invalid_request_error", param: "model", code: "missing_required_field" } });
    const zero = await post("/v1/messages", messagesHeaders(LOCAL_KEY), JSON.stringify({ model: "m", max_tokens: 0, messages: [] }));
    expect(zero.status).toBe(400);
    expect(JSON.parse(zero.body)).toEqual({ type: "error", error: { type: "invalid_request_error", message: 'Field "max_tokens" must be an integer greater than 0.' } });
    const count = await post("/v1/messages/count_tokens", messagesHeaders(LOCAL_KEY), JSON.stringify({ model: "m", messages: "no" }));
    expect(JSON.parse(count.body).error.message).toBe('Field "messages" must be an array.');
  });

  it("does not check passthrough bodies", async () => {
    await start();
    const res = await post("/v1/embeddings", { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "text/plain" }, "not json at all");
    expect(res.status).toBe(200);
    expect(upstream.last().raw.toString()).toBe("not json at all");
  });

  it("413s a body over the limit, and the client reads the answer", async () => {
    await start({ file: { maxBodyBytes: 4096 } });
    const res = await post("/v1/chat/completions", chatHeaders(LOCAL_KEY), Buffer.alloc(64 * 1024, 0x20));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error).toMatchObject({ type: "request_too_large", code: "request_too_large" });
    expect(upstream.received).toHaveLength(0);
  });

  it("413s a 33 MiB body at the default 32 MiB limit", async () => {
    await start();
    const res = await post("/v1/chat/completions", chatHeaders(LOCAL_KEY), Buffer.alloc(33 * 1024 * 1024, 0x20));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.type).toBe("request_too_large");
    const health = await rawRequest(gateway.url, { path: "/health" });
    expect(health.status).toBe(200);
  });
});

describe("routing", () => {
  it("404s unknown paths in the chat shape whatever key they carry", async () => {
    await start();
    for (const path of ["/", "/v2/chat", "/anthropic/v2/messages", "/foo%ZZ"]) {
      const res = await rawRequest(gateway.url, { method: "POST", path, headers: messagesHeaders(LOCAL_KEY), body: "{}" });
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).error).toMatchObject({ type: "not_found_error", param: null });
      expectRequestId(res.headers);
    }
    expect(upstream.received).toHaveLength(0);
    // Issue 47 item 20: a browser opening the gateway's address is pointed at the dashboard.
    const root = await rawRequest(gateway.url, { path: "/" });
    expect(root.status).toBe(404);
    expect(JSON.parse(root.body).error.message).toBe("Nothing is served at GET /. Use /v1/... (OpenAI style), /anthropic/v1/... (Anthropic style) or /gemini/v1beta/... (Gemini style); the dashboard is at /ui/ (`gateway ui` opens it with the key).");
  });

  it("moves the messages family to a configured segment and 404s /anthropic", async () => {
    await start({ flags: { messagesSegment: "claude" } });
    const moved = await rawRequest(gateway.url, { method: "POST", path: "/claude/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: messagesBody });
    expect(moved.status).toBe(200);
    expect(upstream.last().url).toBe("/claude/v1/messages");
    const old = await rawRequest(gateway.url, { method: "POST", path: "/anthropic/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: messagesBody });
    expect(old.status).toBe(404);
  });

  it("answers Claude Code's HEAD pre-connect at once, without a body or key", async () => {
    await start();
    for (const path of ["/", "/anthropic"]) {
      const res = await rawRequest(gateway.url, { method: "HEAD", path });
      expect(res.status).toBe(200);
      expect(res.body).toBe("");
    }
  });


  it("never lets dot segments or encoded slashes escape the family prefix upstream", async () => {
    await start();
    const attempts = [
      "/anthropic/v1/../../secret",
      "/anthropic/v1/%2e%2e/%2e%2e/secret",
      "/anthropic/v1/..%2f..%2fsecret",
      "/v1/..%2Fadmin",
      "/v1/%5c..%5cadmin",
      "/anthropic/v1/messages/../../../v1/models",
    ];
    for (const path of attempts) {
      const res = await rawRequest(gateway.url, { method: "GET", path, headers: { ...messagesHeaders(LOCAL_KEY), authorization: `Bearer ${LOCAL_KEY}` } });
      expect([200, 404], path).toContain(res.status);
    }
    for (const seen of upstream.received) expect(seen.url).toMatch(/^\/(anthropic\/)?v1\//);
    expect(upstream.received.map((r) => r.url)).not.toContain("/secret");
  });
});
