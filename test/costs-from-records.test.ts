import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logFilePath } from "../src/request-log/log-file.js";
import { readRecords } from "../src/request-log/read-log.js";
import { cliEnv, runCli, spawnCli, waitForOutput } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { scripted } from "./helpers/chat-script.js";
import { STRICT_KINDS, startStrictFake } from "./helpers/strict/index.js";


/**
 * Issue 37, item 12: a request is priced from its record alone. The record says what served it (the echo upstream
 * or not, the client's format and the format the upstream answered in), so `stats` and `logs` price it the same
 * whatever the config says when they run; records of older gateways, without those fields, price as they did.
 */

const opened = closeAfterEach();
let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

/** Starts `gateway start <args>` on a free port, sends one chat request for gpt-4o through it, and stops it. */
async function oneRequest(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const gateway = spawnCli(["start", "--port", "0", "--quiet", ...args], env);
  try {
    const [, url] = (await waitForOutput(gateway, /listening on (http:\/\/127\.0\.0\.1:\d+)/)) as unknown as [string, string];
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "one two" }] });
  } finally {
    gateway.kill("SIGTERM");
    await new Promise((resolve) => gateway.once("close", resolve));
  }
}

const costs = async (env: NodeJS.ProcessEnv) => {
  const stats = await runCli(["stats", "--json"], env);
  const logs = await runCli(["logs", "--json"], env);
  expect(stats.code, stats.stderr).toBe(0);
  return { stats: JSON.parse(stats.stdout).total.costUsd as number, logs: logs.stdout.trim().split("\n").map((line) => JSON.parse(line).costUsd as number | null) };
};

describe("costs come from what the record says served the request (item 12)", () => {
  it("prices a request that --upstream or GATEWAY_UPSTREAM sent to a real upstream, though config.json names none", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "gateway-costs-"));
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: stateDir, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY });
    await oneRequest(["--upstream", upstream.url], env);
    await oneRequest([], { ...env, GATEWAY_UPSTREAM: upstream.url });
    // GPT-4o: $2.50 per million input tokens, $1.25 cached, $10 output; the fake reports 11 in (4 cached) and 3 out.
    const each = Math.round(((11 - 4) * 2.5 + 4 * 1.25 + 3 * 10)) / 1e6;
    const { stats, logs } = await costs(env);
    expect(logs).toEqual([each, each]);
    expect(stats).toBeCloseTo(2 * each, 9);
  });

  it("prices nothing for a request the echo upstream served, though config.json names a real upstream", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "gateway-costs-"));
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: upstream.url }), GATEWAY_STATE_DIR: stateDir, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY });
    await oneRequest(["--upstream", "echo"], env);
    const { stats, logs } = await costs(env);
    expect(logs).toEqual([0]);
    expect(stats).toBe(0);
  });

  it("records the echo upstream, the client's format and the upstream's as fields of their own", async () => {
    const chatOnly = opened(await startStrictFake(STRICT_KINDS.generic, { script: scripted({ text: "hi" }) }));
    const gateway = opened(
      await startTestGateway(undefined, { file: { upstream: "local", upstreams: { local: { url: chatOnly.url, formats: ["chat"], key: "none" }, offline: { url: "echo", models: ["echo-*"] } } } }),
    );
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    await anthropic.messages.create({ model: "qwen3", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
    await anthropic.messages.create({ model: "echo-1", max_tokens: 10, messages: [{ role: "user", content: "x" }] });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: "qwen3", messages: [{ role: "user", content: "x" }] });
    const pick = ({ upstream, echo, format, upstreamFormat, translated }: Record<string, unknown>) => ({ upstream, echo, format, upstreamFormat, translated });
    expect(gateway.records.map((r) => pick({ ...r }))).toEqual([
      { upstream: "local", echo: false, format: "messages", upstreamFormat: "chat", translated: "messages -> chat" },
      { upstream: "offline", echo: true, format: "messages", upstreamFormat: "messages", translated: undefined },
      { upstream: "local", echo: false, format: "chat", upstreamFormat: "chat", translated: undefined },
    ]);
  });

  it("prices records of older gateways (no echo or format fields) as before: echo by the config's upstream of that name, usage by the translated pair", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "gateway-costs-"));
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const base = { method: "POST", status: 200, durationMs: 10, ttfbMs: 5, userAgent: "curl/8", outcome: "complete", cacheWriteTokens: undefined };
    const old = [
      // Anthropic's input_tokens leave the cached ones out; chat's prompt_tokens hold them: the pair says which.
      { ...base, time: "2026-11-20T10:00:00.000Z", requestId: "req_old1", path: "/v1/messages", family: "messages", model: "claude-sonnet-4-5", upstream: "default", translated: "messages -> chat", inputTokens: 1000, cacheReadTokens: 1000, outputTokens: 0 },
      { ...base, time: "2026-11-20T10:00:01.000Z", requestId: "req_old2", path: "/v1/messages", family: "messages", model: "claude-sonnet-4-5", upstream: "default", inputTokens: 1000, cacheReadTokens: 1000, outputTokens: 0 },
      { ...base, time: "2026-11-20T10:00:02.000Z", requestId: "req_old3", path: "/v1/chat/completions", family: "chat", model: "gpt-4o", upstream: "offline", inputTokens: 1000, outputTokens: 1000 },
    ];
    writeFileSync(logFilePath(stateDir), old.map((r) => `${JSON.stringify(r)}\n`).join(""), { mode: 0o600 });
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: upstream.url, upstreams: { offline: { url: "echo" } } }), GATEWAY_STATE_DIR: stateDir });
    expect((await costs(env)).logs).toEqual([0.0003, 0.0033, 0]);
    // Read back, an old translated record carries the formats its display string names.
    expect((await readRecords(stateDir)).records[0]).toMatchObject({ format: "messages", upstreamFormat: "chat" });
  });
});
