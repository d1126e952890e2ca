import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogFile } from "../src/request-log/log-file.js";
import { followRecords } from "../src/request-log/follow-log.js";
import { readRecords } from "../src/request-log/read-log.js";
import type { RequestRecord } from "../src/request-log/record.js";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, tempConfigDir, useGatewayPair } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

/** The three bugs the request-path review found; each test fails on the code before the fix. */

describe("shutdown answers requests still waiting for the upstream", () => {
  const pair = useGatewayPair();

  it("a request whose upstream never answers gets 502 in its family's shape when the grace runs out", async () => {
    const { upstream, gateway } = await pair.start();
    upstream.behaviour.headersDelayMs = 60_000;
    const waiting = [
      rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) }),
      rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 1, messages: [] }) }),
    ];
    await expect.poll(() => upstream.received.length).toBe(2);
    const started = Date.now();
    await gateway.close(300);
    expect(Date.now() - started).toBeLessThan(2_000);
    const [chat, messages] = await Promise.all(waiting);
    const message = "The gateway is shutting down; the request was cut short. Retry it.";
    expect(chat!.status).toBe(502);
    expect(JSON.parse(chat!.body)).toEqual({ error: { message, type: "api_error", param: null, code: "upstream_error" } });
    expect(messages!.status).toBe(502);
    expect(JSON.parse(messages!.body)).toEqual({ type: "error", error: { type: "api_error", message } });
    await expect.poll(() => upstream.received.every((r) => r.abortedAt !== undefined)).toBe(true);
  });

  it("gateway start exits 0 within the grace after SIGTERM with a request waiting", async () => {
    const { upstream } = await pair.start();
    upstream.behaviour.headersDelayMs = 60_000;
    const graceMs = 300;
    const child = spawnCli(["start", "--port", "0"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ shutdownGraceMs: graceMs }), GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY }));
    const [, url] = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const reply = rawRequest(url!, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [] }) });
    await expect.poll(() => upstream.received.length).toBe(1);
    const started = Date.now();
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(graceMs + 3_000);
    expect((await reply).status).toBe(502);
  });
});

describe("gateway chat decodes the stream, not each chunk", () => {
  const opened = closeAfterEach();

  it.each([
    ["chat", "/v1/chat/completions", (t: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: t } }] })}\n\n`],
    ["messages", "/anthropic/v1/messages", (t: string) => `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } })}\n\n`],
    ["gemini", "/gemini/v1beta/models/m:streamGenerateContent", (t: string) => `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: t }] } }] })}\r\n\r\n`],
  ])("%s: Café 中文 🚀 split inside its characters prints whole", async (api, path, event) => {
    const bytes = Buffer.from(event("Café 中文 🚀"));
    // one write per byte, a moment apart: every multibyte character is split between network writes
    const upstream = opened(await startFakeUpstream({ script: () => ({ chunks: [...bytes].map((byte) => Buffer.from([byte])), gapMs: 1 }) }));
    const result = await runCli(["chat", "--api", api, "-m", "m", "hi"], cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY }));
    expect(upstream.last().url.startsWith(path)).toBe(true);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("Café 中文 🚀\n");
  });
});

describe("logs -f across rotations", () => {
  it("prints every record exactly once while the log rotates under it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-follow-"));
    // about 60 records a file: three rotations in the run, each well apart from the next (a real log rotates every 10 MiB)
    const writer = createLogFile({ dir, maxBytes: 18_000, keep: 3, flushMs: 5, onError: (m) => expect.fail(m) });
    const followed: string[] = [];
    const stop = followRecords(dir, (await readRecords(dir)).end, (r) => followed.push(r.requestId), (e) => expect.fail(e.message));
    const record = (i: number): RequestRecord => ({
      time: new Date().toISOString(), requestId: `req_${i}`, method: "POST", path: "/v1/chat/completions", family: "chat", model: "m", status: 200,
      durationMs: 1, ttfbMs: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: undefined, cacheWriteTokens: undefined, userAgent: "t", outcome: "complete",
    });
    for (let i = 0; i < 200; i++) {
      writer.sink(record(i));
      // Ten records a batch, each batch followed before the next: the log rotates under a follower that is reading.
      if (i % 10 === 9) await expect.poll(() => followed.length, { timeout: 5_000 }).toBe(i + 1);
    }
    await writer.close();
    await expect.poll(() => followed.length, { timeout: 5_000 }).toBe(200);
    stop();
    expect(followed).toEqual(Array.from({ length: 200 }, (_, i) => `req_${i}`));
  });
});
