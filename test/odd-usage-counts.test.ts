import { mkdirSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
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
});
