import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { ConfigError } from "../src/errors/index.js";
import { createPricer, loadPriceTable, NO_PRICES, type Pricer, type TablePrice } from "../src/pricing/index.js";
import type { RequestRecord } from "../src/request-log/record.js";
import { summarize } from "../src/stats/summarize.js";

function record(fields: Partial<RequestRecord>): RequestRecord {
  return {
    time: "2026-11-23T10:00:00.000Z",
    requestId: "req_1",
    method: "POST",
    path: "/v1/chat/completions",
    family: "chat",
    model: "gpt-4o",
    upstream: "default",
    status: 200,
    durationMs: 100,
    ttfbMs: 50,
    inputTokens: undefined,
    outputTokens: undefined,
    cacheReadTokens: undefined,
    cacheWriteTokens: undefined,
    userAgent: "curl/8.5.0",
    outcome: "complete",
    ...fields,
  };
}

const REMOTE = { name: "default", url: "https://gateway.example.com" };
const config = (prices: Record<string, { input: number; output: number; cacheRead?: number; cacheWrite?: number }> = {}, upstreams = [REMOTE]) =>
  ({ prices, upstreams }) as unknown as Parameters<typeof createPricer>[0];

let table: TablePrice;
let pricer: Pricer;
beforeAll(async () => {
  table = await loadPriceTable();
  pricer = createPricer(config(), table);
});

describe("a request's cost from the bundled price table", () => {
  it("prices input, cache reads, cache writes and output apart (Claude Sonnet 4.5: $3, $0.30, $3.75, $15 per million)", () => {
    // Anthropic's input_tokens leaves the cached ones out.
    const messages = record({ family: "messages", path: "/v1/messages", model: "claude-sonnet-4-5", inputTokens: 1000, cacheReadTokens: 2000, cacheWriteTokens: 500, outputTokens: 100 });
    expect(pricer(messages)).toBe(0.006975);
  });

  it("reads chat usage as chat counts it: cached tokens are part of prompt_tokens (GPT-4o: $2.50, $1.25 cached, $10 out)", () => {
    expect(pricer(record({ inputTokens: 1000, cacheReadTokens: 400, outputTokens: 100 }))).toBe(0.003);
  });

  it("reads a translated request's usage in the upstream's format (messages -> chat: chat's prompt_tokens)", () => {
    const translated = record({ family: "messages", model: "claude-sonnet-4-5", format: "messages", upstreamFormat: "chat", inputTokens: 1000, cacheReadTokens: 1000, outputTokens: 0 });
    expect(pricer(translated)).toBe(0.0003);
    // The display string is not read (issue 37, item 12): the fields say what served it.
    expect(pricer({ ...translated, upstreamFormat: "messages", translated: "messages -> chat" })).toBe(0.0033);
  });

  it("prices an alias as its target", () => {
    expect(pricer(record({ model: "my-fast-model", target: "gpt-4o", inputTokens: 1_000_000, outputTokens: 0 }))).toBe(2.5);
  });

  it("prices OpenRouter's vendor/model ids from OpenRouter's part of the table", () => {
    expect(pricer(record({ model: "anthropic/claude-sonnet-4.5", inputTokens: 100_000, outputTokens: 100_000 }))).toBe(1.8);
  });

  it("says unknown (null), never 0, for a model the table lacks, and for a request that names no model", () => {
    expect(pricer(record({ model: "qwen3-coder:30b", inputTokens: 10, outputTokens: 5 }))).toBeNull();
    expect(pricer(record({ model: undefined, inputTokens: 10, outputTokens: 5 }))).toBeNull();
  });

  it("has nothing to price when the reply reported no tokens (a refused request)", () => {
    expect(pricer(record({ status: 401, outcome: "local_error" }))).toBeUndefined();
  });

  it("costs nothing on the built-in echo upstream, whatever the model", () => {
    expect(pricer(record({ model: "gpt-4o", echo: true, inputTokens: 1_000_000, outputTokens: 1_000_000 }))).toBe(0);
    // What the record says wins over the config of the moment (issue 37, item 12); older records go by the config.
    const echo = createPricer(config({}, [{ name: "default", url: "echo" }]), table);
    expect(echo(record({ model: "gpt-4o", echo: false, inputTokens: 1_000_000, outputTokens: 1_000_000 }))).toBe(12.5);
    expect(echo(record({ model: "gpt-4o", inputTokens: 1_000_000, outputTokens: 1_000_000 }))).toBe(0);
  });

  it("prices a request by the table of its own day", () => {
    // GPT-4o's price is the same on both days; the point is that a record's time reaches the table.
    const older = record({ time: "2025-01-01T00:00:00.000Z", inputTokens: 1_000_000, outputTokens: 0 });
    expect(pricer(older)).toBe(2.5);
  });
});

describe("the user's own prices (config prices)", () => {
  it("win over the table, exact ids before * patterns in file order, cache tokens as input unless priced", () => {
    const own = createPricer(config({ "qwen*": { input: 0.2, output: 0.6 }, "qwen3-coder": { input: 1, output: 2, cacheRead: 0.1 }, "gpt-4o": { input: 0, output: 0 } }), table);
    expect(own(record({ model: "qwen3-coder", inputTokens: 1_000_000, cacheReadTokens: 500_000, outputTokens: 1_000_000 }))).toBe(2.55);
    expect(own(record({ model: "qwen2.5", inputTokens: 1_000_000, cacheReadTokens: 500_000, outputTokens: 1_000_000 }))).toBe(0.8);
    expect(own(record({ model: "gpt-4o", inputTokens: 1_000_000, outputTokens: 1_000_000 }))).toBe(0);
  });

  it("are read from config.json and refused with the field named when malformed", () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-prices-"));
    writeFileSync(join(dir, "config.json"), JSON.stringify({ prices: { "qwen*": { input: 0.2, output: 0.6, cacheRead: 0.02 } } }));
    expect(loadConfig({ env: { GATEWAY_CONFIG_DIR: dir } }).prices).toEqual({ "qwen*": { input: 0.2, output: 0.6, cacheRead: 0.02 } });
    const refused = (prices: unknown) => {
      writeFileSync(join(dir, "config.json"), JSON.stringify({ prices }));
      try {
        loadConfig({ env: { GATEWAY_CONFIG_DIR: dir } });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message.replace(`Invalid configuration in ${join(dir, "config.json")}: `, "");
      }
      throw new Error("accepted");
    };
    expect(refused({ "qwen*": { input: -1, output: 0 } })).toBe('"prices["qwen*"].input" must be a number of US dollars per million tokens, 0 or more (got -1).');
    expect(refused({ "qwen*": { input: 1 } })).toBe('"prices["qwen*"].output" must be set: it is required (got nothing).');
    expect(refused({ "qwen*": { input: 1, output: 1, cacheread: 1 } })).toBe('"prices["qwen*"].cacheread" must be absent: it is not a known field (did you mean "cacheRead"?) (got 1).');
    expect(refused({ "qwen*": 3 })).toBe('"prices["qwen*"]" must be an object of US dollars per million tokens, e.g. {"input": 0.5, "output": 1.5} (got 3).');
  });
});

describe("the summary's costs (what stats and the dashboard show)", () => {
  it("adds the known costs per model, client, upstream and in total, and counts the unknown ones apart", () => {
    const records = [
      record({ model: "gpt-4o", inputTokens: 1_000_000, outputTokens: 0, upstream: "remote" }),
      record({ model: "gpt-4o", inputTokens: 0, outputTokens: 100_000, upstream: "remote", userAgent: "claude-cli/2.1.197" }),
      record({ model: "local-llm", inputTokens: 5, outputTokens: 5, upstream: "local" }),
      record({ model: "gpt-4o", status: 401, outcome: "local_error" }),
    ];
    const summary = summarize(records, pricer);
    expect(summary.total).toMatchObject({ requests: 4, costUsd: 3.5, unpricedRequests: 1 });
    expect(summary.models.map((g) => [g.name, g.costUsd, g.unpricedRequests])).toEqual([
      ["gpt-4o", 3.5, 0],
      ["local-llm", 0, 1],
    ]);
    expect(summary.upstreams.map((g) => [g.name, g.requests, g.costUsd, g.unpricedRequests])).toEqual([
      ["remote", 2, 3.5, 0],
      ["default", 1, 0, 0],
      ["local", 1, 0, 1],
    ]);
    expect(summary.clients.map((g) => [g.name, g.costUsd])).toEqual([
      ["curl", 2.5],
      ["claude-code", 1],
    ]);
  });

  it("a merged model list counts in the row of each upstream it asked, never as an upstream named default,local (issue 47 item 20)", () => {
    const records = [
      record({ method: "GET", path: "/v1/models", model: undefined, upstream: "default,local" }),
      record({ model: "local-llm", inputTokens: 5, outputTokens: 5, upstream: "local" }),
    ];
    const summary = summarize(records);
    expect(summary.total.requests).toBe(2);
    expect(summary.upstreams.map((g) => [g.name, g.requests])).toEqual([
      ["local", 2],
      ["default", 1],
    ]);
  });

  it("without a pricer, every request with tokens is unknown", () => {
    expect(summarize([record({ inputTokens: 1, outputTokens: 1 })]).total).toMatchObject({ costUsd: 0, unpricedRequests: 1 });
    expect(NO_PRICES(record({}))).toBeUndefined();
  });
});
