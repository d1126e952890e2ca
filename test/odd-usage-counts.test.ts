import { mkdirSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { writeRequestLog } from "./helpers/request-records.js";

const opened = closeAfterEach();

describe("an upstream that reports a negative token count", () => {
  it("has it left out of the record, so the request is priced and stats still runs", async () => {
    const usage = { prompt_tokens: 12, completion_tokens: -1_000_000, total_tokens: -999_988 };
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "hi" }, "stop", usage) }) }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "u", upstreams: { u: { url: upstream.url, key: "none" } } } }));
    const reply = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    // The client gets the upstream's reply as it came (passthrough); only the gateway's own count leaves it out.
    expect(reply.usage?.completion_tokens).toBe(-1_000_000);
    expect(gateway.records.at(-1)).toMatchObject({ inputTokens: 12, outputTokens: undefined });

    const state = join(gateway.configDir, "state");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    writeRequestLog(state, gateway.records);
    const stats = await runCli(["stats", "--json"], cliEnv({ GATEWAY_CONFIG_DIR: gateway.configDir, GATEWAY_STATE_DIR: state }));
    expect(stats.stderr).toBe("");
    expect(stats.code).toBe(0);
    // gpt-4o-mini's input at $0.15 a million: 12 tokens.
    expect(JSON.parse(stats.stdout).total).toMatchObject({ requests: 1, inputTokens: 12, outputTokens: 0, costUsd: 0.000002 });
  });

  it("in a log an older gateway wrote, is read as absent, so stats prices the rest and runs", async () => {
    const configDir = tempConfigDir();
    const state = join(configDir, "state");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    const base = { time: new Date().toISOString(), requestId: "r1", method: "POST", path: "/v1/chat/completions", family: "chat", status: 200, durationMs: 5, model: "gpt-4o-mini", upstream: "u" };
    writeRequestLog(state, [{ ...base, inputTokens: 12, outputTokens: -1_000_000, cacheReadTokens: -3 }, { ...base, requestId: "r2", inputTokens: 12, outputTokens: 0 }] as never);
    const stats = await runCli(["stats", "--json"], cliEnv({ GATEWAY_CONFIG_DIR: configDir, GATEWAY_STATE_DIR: state }));
    expect(stats.stderr).toBe("");
    expect(stats.code).toBe(0);
    // gpt-4o-mini's input at $0.15 a million: 24 tokens.
    expect(JSON.parse(stats.stdout).total).toMatchObject({ requests: 2, inputTokens: 24, outputTokens: 0, costUsd: 0.000004 });
  });
});
