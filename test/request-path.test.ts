import { lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { request } from "node:http";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { formatCapture } from "../src/cli/show-capture.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { completion, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";

/**
 * The request path's seven defects of the outside review (issue "Two sides of every request"); each test failed on
 * the code before the split of endpoint and route, the one error boundary and the reply transforms.
 */

const opened = closeAfterEach();
let upstream: FakeUpstream;
let gateway: TestGateway;

const CHAT_LIST = { object: "list", data: [{ id: "m-1", object: "model", created: 1700000000, owned_by: "up" }] };

describe("one error boundary", () => {
  it("answers an exception no stage expected with a 500 in the caller's family shape, an x-request-id and a record", async () => {
    upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "never" }) }) }));
    const internal: unknown[] = [];
    gateway = opened(await startTestGateway(upstream.url, {
      keySourceFor: () => () => ({ kind: "env", name: "env:BROKEN", describe: "broken", get: () => Promise.reject(new TypeError("a bug")), refresh: () => Promise.reject(new TypeError("a bug")), missing: () => { throw new TypeError("a bug"); } }),
      onInternalError: (error) => internal.push(error),
    }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 5, messages: [] }) });
    expect(res.status).toBe(500);
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    expect(JSON.parse(res.body)).toEqual({
      type: "error",
      error: { type: "api_error", message: "The gateway failed on this request in a way it did not expect; its log has the details. Retry it, and report it if it keeps happening." },
    });
    expect(internal).toEqual([new TypeError("a bug")]);
    expect(gateway.records.at(-1)).toMatchObject({ requestId: res.headers["x-request-id"], status: 500, outcome: "local_error", errorCode: "internal_error", family: "messages" });
  });

  it("a model list with aliases whose upstream dies mid-body is a 502 in the family's shape, recorded, never h3's own 500", async () => {
    const half = JSON.stringify(CHAT_LIST).slice(0, 20);
    upstream = opened(await startFakeUpstream({ script: () => ({ headers: { "content-type": "application/json", "content-length": "200" }, chunks: [half], die: true }) }));
    gateway = opened(await startTestGateway(upstream.url, { file: { models: { alias: "m-1" } } }));
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(res.status).toBe(502);
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    expect(JSON.parse(res.body).error).toMatchObject({ type: "api_error", code: "upstream_error" });
    expect(JSON.parse(res.body).error.message).toMatch(/^The connection to the upstream http:\/\/127\.0\.0\.1:\d+ broke in the middle of the reply\. Try again\.$/);
    expect(gateway.records.at(-1)).toMatchObject({ status: 502, outcome: "local_error" });
  });
});

describe("the in-flight registry holds requests, not dashboard tabs", () => {
  it("an open live feed neither counts as a request nor keeps the gateway busy", async () => {
    gateway = opened(await startTestGateway("echo"));
    const { port } = new URL(gateway.url);
    const live = await new Promise<import("node:http").IncomingMessage>((resolve) => {
      request({ host: "127.0.0.1", port, path: "/ui/api/live", headers: { authorization: `Bearer ${LOCAL_KEY}` } }, resolve).end();
    });
    expect(live.statusCode).toBe(200);
    expect(gateway.inflight()).toBe(0);
    live.destroy();
  });
});

describe("gateway login writes config.json as SPEC section 8 says", () => {
  const loginEnv = (dir: string) => cliEnv({ GATEWAY_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
  const keyring = process.env.GATEWAY_TEST_KEYRING === "1";

  it.skipIf(!keyring)("never follows a symbolic link, and leaves a file only its owner can read", async () => {
    const dir = tempConfigDir();
    const elsewhere = join(tempConfigDir(), "target.json");
    writeFileSync(elsewhere, "{}\n");
    symlinkSync(elsewhere, join(dir, "config.json"));
    const refused = await runCli(["login", "--upstream", "https://gateway.example.com", "--stdin", "--no-verify"], loginEnv(dir), "sk-login-symlink-0123");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(dir, "config.json")} is a symbolic link; gateway only uses regular files there.`);
    expect(readFileSync(elsewhere, "utf8")).toBe("{}\n");

    const open = tempConfigDir();
    writeFileSync(join(open, "config.json"), JSON.stringify({ port: 9123 }), { mode: 0o644 });
    const stored = await runCli(["login", "--upstream", "https://gateway.example.com", "--stdin", "--no-verify"], loginEnv(open), "sk-login-mode-0123");
    expect(stored.code, stored.stderr).toBe(0);
    expect(statSync(join(open, "config.json")).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(open, "config.json")).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(join(open, "config.json"), "utf8"))).toEqual({ port: 9123, upstream: "https://gateway.example.com" });
    await runCli(["logout", "--upstream", "https://gateway.example.com"], loginEnv(open));
  });
});

describe("flags are usage", () => {
  it("a clash between two segment flags exits 2", async () => {
    const result = await runCli(["start", "--gemini-segment", "anthropic"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_PORT: "0" }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The Gemini and messages segments are both "anthropic".');
  });
});

describe("the WebSocket refusal", () => {
  /** The raw HTTP answer to an upgrade of `path`, read until the gateway closes the socket. */
  async function upgradeAnswer(path: string): Promise<string> {
    const socket = connect(Number(new URL(gateway.url).port), "127.0.0.1");
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString()));
    await new Promise((resolve) => socket.on("close", resolve));
    return text;
  }

  it("carries an x-request-id like every error the gateway makes: 426 on a path that serves none, 401 without the local key", async () => {
    gateway = opened(await startTestGateway("echo"));
    const elsewhere = await upgradeAnswer("/v1/chat/completions");
    expect(elsewhere).toMatch(/^HTTP\/1\.1 426 Upgrade Required\r\n/);
    expect(elsewhere).toMatch(/\r\nx-request-id: req_[0-9a-f]+\r\n/);
    const keyless = await upgradeAnswer("/v1/responses");
    expect(keyless).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(keyless).toMatch(/\r\nx-request-id: req_[0-9a-f]+\r\n/);
  });
});

describe("compressed replies", () => {
  it("a model list the gateway must read is decompressed and sent plain: aliases appended, no content-encoding", async () => {
    upstream = opened(await startFakeUpstream({ script: () => ({ headers: { "content-type": "application/json", "content-encoding": "gzip" }, chunks: [gzipSync(JSON.stringify(CHAT_LIST))] }) }));
    gateway = opened(await startTestGateway(upstream.url, { file: { models: { alias: "m-1" } } }));
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: { ...chatHeaders(LOCAL_KEY), "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(res.body).data.map((m: { id: string }) => m.id)).toEqual(["m-1", "alias"]);
    expect(upstream.last().headers["accept-encoding"]).toBeUndefined();
  });

  it("a compressed passthrough reply keeps its encoding, and its usage is still recorded", async () => {
    const body = gzipSync(JSON.stringify(completion({ content: "hi" }, "stop", { prompt_tokens: 21, completion_tokens: 3, total_tokens: 24 })));
    upstream = opened(await startFakeUpstream({ script: () => ({ headers: { "content-type": "application/json", "content-encoding": "gzip" }, chunks: [body] }) }));
    gateway = opened(await startTestGateway(upstream.url));
    const raw = await new Promise<Buffer>((resolve) => {
      const req = request({ host: "127.0.0.1", port: new URL(gateway!.url).port, method: "POST", path: "/v1/chat/completions", headers: { ...chatHeaders(LOCAL_KEY), "accept-encoding": "gzip" } }, (res) => {
        expect(res.headers["content-encoding"]).toBe("gzip");
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
      });
      req.end(JSON.stringify({ model: "m", messages: [] }));
    });
    expect(raw).toEqual(body);
    await expect.poll(() => gateway!.records.at(-1)).toMatchObject({ inputTokens: 21, outputTokens: 3 });
  });
});


describe("capture keeps what went wrong", () => {
  it("a 401 under --capture errors is captured with the request and the error body the client got", async () => {
    gateway = opened(await startTestGateway("echo", { flags: { capture: "errors" } }));
    const refused = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders("gw-wrong-key"), body: JSON.stringify({ model: "m", messages: [] }) });
    expect(refused.status).toBe(401);
    const id = refused.headers["x-request-id"] as string;
    const detail = JSON.parse((await rawRequest(gateway.url, { path: `/ui/api/requests/${id}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } })).body);
    expect(detail.record).toMatchObject({ status: 401, outcome: "local_error" });
    expect(detail.capture.request).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
    expect(detail.capture.request.headers.authorization).toBe("[redacted]");
    expect(detail.capture.response).toMatchObject({ status: 401 });
    expect(JSON.parse(detail.capture.chunks.map((c: { text: string }) => c.text).join(""))).toEqual(JSON.parse(refused.body));
  });

  it("an upstream failure is captured with every attempt (retries and fallback, status or failure, time) and the reply the client got", async () => {
    upstream = opened(await startFakeUpstream({ script: () => ({ status: 503, json: { error: { message: "overloaded" } } }) }));
    const closed = await startFakeUpstream({ script: () => ({ json: {} }) });
    const deadUrl = closed.url;
    await closed.close();
    gateway = opened(await startTestGateway(undefined, {
      flags: { capture: "errors" },
      file: { upstream: "busy", upstreams: { busy: { url: upstream.url, key: "none", retries: 1, fallback: ["gone"] }, gone: { url: deadUrl, key: "none", retries: 0 } } },
    }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
    expect(res.status).toBe(502);
    await expect.poll(() => gateway.records.length).toBe(1);
    const detail = JSON.parse((await rawRequest(gateway.url, { path: `/ui/api/requests/${gateway.records[0]!.requestId}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } })).body);
    expect(detail.capture.attempts).toEqual([
      { upstream: "busy", status: 503, ms: expect.any(Number) },
      { upstream: "busy", status: 503, ms: expect.any(Number) },
      { upstream: "gone", failure: "unreachable", ms: expect.any(Number) },
    ]);
    expect(detail.capture.response).toMatchObject({ status: 502 });
    expect(JSON.parse(detail.capture.chunks.map((c: { text: string }) => c.text).join(""))).toEqual(JSON.parse(res.body));
    const shown = formatCapture(detail);
    expect(shown).toMatch(/\* attempt 1: busy 503 after \d+ms\n\* attempt 2: busy 503 after \d+ms\n\* attempt 3: gone unreachable after \d+ms\n/);
  });
});
