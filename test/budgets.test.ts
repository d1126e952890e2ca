import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { spanOf } from "../src/budgets/periods.js";
import { formatDateTime } from "../src/request-log/format.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { chatSse, chunk, completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";
import { spentRecord, writeRequestLog } from "./helpers/request-records.js";
import { STRICT_KINDS, startStrictFake } from "./helpers/strict/index.js";

/**
 * SPEC 11, Budgets, through a real gateway on loopback: the spend of the recorded requests since the local day's and
 * month's start (priced as `stats` prices them), kept in memory and loaded from the request log at start; over a
 * budget the request is not sent, falls back to an upstream whose budgets allow it, or gets 429 in its family's shape
 * with `retry-after` until the reset; echo and local servers cost nothing unless `prices` names their models.
 */

const opened = closeAfterEach();

/** $0.10 per input token: each reply of the fake upstream (12 tokens in, 5 out) costs $1.20. */
const PRICES = { "paid-*": { input: 100_000, output: 0 }, "priced-local": { input: 100_000, output: 0 } };

async function upstream(name: string) {
  // Held to what every chat server refuses: some of these requests come translated from a messages client.
  return opened(await startStrictFake(STRICT_KINDS.generic, { script: () => ({ json: completion({ content: `from ${name}` }) }) }));
}

async function start(file: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<TestGateway> {
  return opened(await startTestGateway(undefined, { file: { prices: PRICES, ...file }, env }));
}

const chat = (gateway: TestGateway, model: string) =>
  rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });

/** The seconds until the local day's end, as a `retry-after` says them now (give or take the test's own time). */
const secondsToMidnight = () => Math.ceil((spanOf("daily", Date.now()).end - Date.now()) / 1000);

describe("a spent budget", () => {
  it("stops its upstream with a 429 in each family's shape, retry-after until the local day's end, naming the budget, the spend and the reset", async () => {
    const paid = await upstream("paid");
    const gateway = await start({ upstreams: { paid: { url: paid.url, key: "none", budgets: { daily: 2 } } } });
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    // $2.40 spent of $2: the third is not sent.
    const before = secondsToMidnight();
    const refused = await chat(gateway, "paid-1");
    const after = secondsToMidnight();
    expect(paid.received).toHaveLength(2);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(after - 1);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(before);
    expect(refused.headers["x-gateway-upstream"]).toBe("paid");
    const reset = formatDateTime(spanOf("daily", Date.now()).end);
    const message = `The daily budget of the upstream paid ($2.00) is spent: $2.40 estimated since the day began, so the request was not sent. It resets at ${reset} (local time). Wait until then, or raise "upstreams.paid.budgets.daily" in ${join(gateway.configDir, "config.json")} and restart the gateway.`;
    expect(JSON.parse(refused.body)).toEqual({ error: { message, type: "insufficient_quota", param: null, code: "budget_exceeded" } });

    const openai = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions.create({ model: "paid-1", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(openai).toBeInstanceOf(OpenAI.RateLimitError);
    const anthropic = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.create({ model: "paid-1", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(anthropic).toBeInstanceOf(Anthropic.RateLimitError);
    expect((anthropic as InstanceType<typeof Anthropic.RateLimitError>).error).toEqual({ type: "error", error: { type: "rate_limit_error", message } });
    const gemini = await rawRequest(gateway.url, {
      method: "POST",
      path: "/gemini/v1beta/models/paid-1:generateContent",
      headers: { "content-type": "application/json", "x-goog-api-key": LOCAL_KEY },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(gemini.status).toBe(429);
    expect(JSON.parse(gemini.body)).toEqual({ error: { code: 429, message, status: "RESOURCE_EXHAUSTED" } });
    await expect(new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } }).models.generateContent({ model: "paid-1", contents: "hi" })).rejects.toThrow(/budget of the upstream paid/);
    expect(paid.received).toHaveLength(2);
    expect(gateway.records.at(-1)).toMatchObject({ status: 429, upstream: "paid", errorCode: "budget_exceeded" });
  });

  it("is summed and compared in whole millionths: ten $0.10 requests spend a $1.00 budget exactly, and the eleventh is not sent", async () => {
    const paid = await upstream("paid");
    // 5 output tokens at $20,000 per million: $0.10 a reply.
    const gateway = await start({ prices: { "tenth-*": { input: 0, output: 20_000 } }, upstreams: { paid: { url: paid.url, key: "none", budgets: { daily: 1 } } } });
    for (let i = 0; i < 10; i++) expect((await chat(gateway, "tenth-1")).status).toBe(200);
    const refused = await chat(gateway, "tenth-1");
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^The daily budget of the upstream paid \(\$1\.00\) is spent: \$1\.00 estimated/);
    expect(paid.received).toHaveLength(10);
  });

  it("still answers a token count the gateway makes itself (its upstream does not serve the format): it costs nothing", async () => {
    const paid = await upstream("paid");
    const gateway = await start({ upstreams: { paid: { url: paid.url, key: "none", formats: ["chat"], budgets: { daily: 1 } } } });
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    expect((await chat(gateway, "paid-1")).status).toBe(429);
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const count = await anthropic.messages.countTokens({ model: "paid-1", messages: [{ role: "user", content: "hello there" }] });
    expect(count.input_tokens).toBeGreaterThan(0);
    expect(paid.received).toHaveLength(1);
  });

  it("falls back, as if its upstream had failed before the first byte, to one whose own and the overall budget allow it", async () => {
    const [paid, spare, other] = [await upstream("paid"), await upstream("spare"), await upstream("other")];
    const gateway = await start({
      budgets: { daily: 100 },
      upstreams: {
        paid: { url: paid.url, key: "none", budgets: { daily: 1 }, fallback: ["other", "spare"] },
        other: { url: other.url, key: "none", budgets: { monthly: 1 } },
        spare: { url: spare.url, key: "none" },
      },
    });
    // The first spends paid's day; the second, refused by paid, spends other's month.
    await chat(gateway, "paid-1");
    await chat(gateway, "paid-1");
    expect(other.received).toHaveLength(1);
    // paid ($1.20 of $1 today) and other ($1.20 of $1 this month) are spent; spare's budget is the overall one only.
    const res = await chat(gateway, "paid-1");
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("spare");
    expect(gateway.records.at(-1)).toMatchObject({
      upstream: "spare",
      tried: [
        { upstream: "paid", failure: "budget daily", durationMs: 0 },
        { upstream: "other", failure: "budget monthly", durationMs: 0 },
      ],
    });
    expect(paid.received).toHaveLength(1);
  });

  it("the overall budget stops every upstream that costs, never echo nor a local server unless prices name its model", async () => {
    const [paid, ollama, priced] = [await upstream("paid"), await upstream("ollama"), await upstream("priced")];
    const gateway = await start({
      budgets: { daily: 1 },
      upstreams: {
        paid: { url: paid.url, key: "none", models: ["paid-*"] },
        ollama: { kind: "ollama", url: ollama.url, formats: ["chat"], models: ["qwen3"] },
        priced: { kind: "vllm", url: priced.url, formats: ["chat"], models: ["priced-local"] },
        offline: { url: "echo", models: ["echo-*"] },
      },
    });
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    expect((await chat(gateway, "paid-1")).status).toBe(429);
    expect((await chat(gateway, "qwen3")).status).toBe(200);
    expect((await chat(gateway, "echo-1")).status).toBe(200);
    expect((await chat(gateway, "priced-local")).status).toBe(429);
    expect(ollama.received).toHaveLength(1);
    expect(priced.received).toHaveLength(0);
  });
});

describe("a streamed chat completion that reports no usage", () => {
  /** The upstream streams like a real chat server: usage only when `stream_options.include_usage` asks for it. */
  async function streaming() {
    return opened(
      await startFakeUpstream({
        script: (request) => {
          const asked = (request.body?.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
          const pieces = [chunk({ role: "assistant", content: "" }), chunk({ content: "Hello " }), chunk({ content: "there, friend." }), chunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "look", arguments: '{"at":"sky"}' } }] }), chunk({}, "stop")];
          return { headers: { "content-type": "text/event-stream" }, chunks: [chatSse(asked ? [...pieces, chunk({}, null, { choices: [], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } })] : pieces)] };
        },
      }),
    );
  }
  const stream = (gateway: TestGateway, includeUsage: boolean) =>
    new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions
      .create({ model: "paid-1", stream: true, messages: [{ role: "user", content: "hi" }], ...(includeUsage ? { stream_options: { include_usage: true } } : {}) })
      .then(async (events) => {
        for await (const _ of events);
      });

  it("is counted with tokens the gateway estimates, marked estimated, and a budget stops it as it stops the same requests unstreamed", async () => {
    const paid = await streaming();
    // $0.10 per input token, $0.01 per output token.
    const gateway = await start({ prices: { "paid-*": { input: 100_000, output: 10_000 } }, upstreams: { paid: { url: paid.url, key: "none", budgets: { daily: 2 } } } });
    await stream(gateway, true);
    expect(gateway.records[0]).toMatchObject({ inputTokens: 12, outputTokens: 5 });
    expect(gateway.records[0]!.estimated).toBeUndefined();
    await stream(gateway, false);
    // Input: the local count's quick estimate of the request; output: what was relayed ("Hello there, friend.", the call's name and arguments), 4 characters a token.
    expect(gateway.records[1]).toMatchObject({ estimated: true, inputTokens: 8, outputTokens: Math.ceil("Hello there, friend.look{\"at\":\"sky\"}".length / 4) });
    // $1.25 + $0.89: the $2 budget is spent, and the next stream is not sent.
    const refused = await stream(gateway, false).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(paid.received).toHaveLength(2);
    // `gateway logs` and `stats` show the figures as estimates.
    // The records as the running gateway's log holds them.
    const state = join(gateway.configDir, "state");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    writeRequestLog(state, gateway.records);
    const env = cliEnv({ GATEWAY_CONFIG_DIR: gateway.configDir, GATEWAY_STATE_DIR: state });
    const logs = await runCli(["logs", "-n", "5"], env);
    expect(logs.stdout).toMatch(/~8\/9\b/);
    const stats = await runCli(["stats"], env);
    expect(stats.stdout).toContain("(~: 1 request reported no usage; the gateway estimated their tokens)");
    const json = JSON.parse((await runCli(["stats", "--json"], env)).stdout);
    expect(json.total).toMatchObject({ estimatedRequests: 1, inputTokens: 20, outputTokens: 14 });
    expect(json.budgets).toEqual([expect.objectContaining({ scope: "paid", period: "daily", spentUsd: 2.14 })]);
  });
});

describe("a translated reply from an upstream that reports no usage", () => {
  /** A chat server that ignores `stream_options.include_usage` and leaves `usage` out of its whole replies. */
  async function silent() {
    const message = { content: "Hello there, friend.", tool_calls: [{ id: "c1", type: "function", function: { name: "look", arguments: '{"at":"sky"}' } }] };
    return opened(
      await startStrictFake(STRICT_KINDS.generic, {
        script: (request) => {
          if (request.body?.stream !== true) return { json: { ...completion(message, "tool_calls"), usage: undefined } };
          const pieces = [chunk({ role: "assistant", content: "" }), chunk({ content: "Hello " }), chunk({ content: "there, friend." }), chunk({ tool_calls: [{ index: 0, ...message.tool_calls[0] }] }), chunk({}, "tool_calls")];
          return { headers: { "content-type": "text/event-stream" }, chunks: [chatSse(pieces)] };
        },
      }),
    );
  }

  it("is counted with tokens the gateway estimates from the request and what it relayed, stream or JSON, and marked estimated", async () => {
    const paid = await silent();
    const gateway = await start({ upstreams: { paid: { url: paid.url, key: "none", formats: ["chat"] } } });
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const body = { model: "paid-1", max_tokens: 50, messages: [{ role: "user" as const, content: "hi" }] };
    const reply = await anthropic.messages.create(body);
    expect(reply.content).toEqual([
      { type: "text", text: "Hello there, friend." },
      { type: "tool_use", id: "c1", name: "look", input: { at: "sky" } },
    ]);
    const events = await anthropic.messages.create({ ...body, stream: true });
    for await (const _ of events);
    // Output: the text, the call's name and arguments, 4 characters a token; input: the local count's quick estimate,
    // the same 8 as the chat request of one "hi" above (the hub is the same).
    const outputTokens = Math.ceil('Hello there, friend.look{"at":"sky"}'.length / 4);
    const [json, stream] = gateway.records;
    expect(json).toMatchObject({ translated: "messages -> chat", estimated: true, inputTokens: 8, outputTokens, costSource: "estimate" });
    expect(stream).toMatchObject({ translated: "messages -> chat", stream: true, estimated: true, inputTokens: 8, outputTokens, costSource: "estimate" });
  });
});

describe("a passed-through chat completion from a server that reports no usage", () => {
  it("is counted with tokens the gateway estimates (input from the request's size, output from the reply's text and calls), and an error reply is not", async () => {
    const message = { content: "Hello there, friend.", tool_calls: [{ id: "c1", type: "function", function: { name: "look", arguments: '{"at":"sky"}' } }] };
    const paid = opened(
      await startStrictFake(STRICT_KINDS.generic, {
        script: (request) =>
          (request.body?.messages as unknown[]).length > 1
            ? { status: 400, json: { error: { message: "one message at most", type: "invalid_request_error" } } }
            : { json: { ...completion(message, "tool_calls"), usage: undefined } },
      }),
    );
    // $0.10 per input token, $0.01 per output token.
    const gateway = await start({ prices: { "paid-*": { input: 100_000, output: 10_000 } }, upstreams: { paid: { url: paid.url, key: "none" } } });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: "paid-1", messages: [{ role: "user", content: "hi" }] });
    expect(reply.choices[0]!.message.content).toBe("Hello there, friend.");
    expect(reply.usage).toBeUndefined();
    const refused = await openai.chat.completions.create({ model: "paid-1", messages: [{ role: "user", content: "hi" }, { role: "user", content: "again" }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    const [answered, failed] = gateway.records;
    // The body went upstream as it came (passthrough), so its size is what the upstream received.
    const inputTokens = Math.ceil(paid.received[0]!.raw.length / 4);
    expect(answered).toMatchObject({ status: 200, estimated: true, inputTokens, outputTokens: Math.ceil('Hello there, friend.look{"at":"sky"}'.length / 4), costSource: "estimate" });
    expect(answered!.translated).toBeUndefined();
    expect(failed).toMatchObject({ status: 400 });
    expect(failed!.estimated).toBeUndefined();
    expect(failed!.inputTokens).toBeUndefined();
  });
});

describe("requests through your own login (a key: client upstream)", () => {
  it("are marked ownLogin, count toward that upstream's budget only, never the overall one, and stats shows their cost apart", async () => {
    const [own, paid] = [await upstream("own"), await upstream("paid")];
    const gateway = await start({ budgets: { daily: 2 }, upstreams: { paid: { url: paid.url, key: "none" }, own: { url: own.url, key: "client", models: ["paid-own"], budgets: { daily: 2 } } } });
    expect((await chat(gateway, "paid-own")).status).toBe(200);
    expect((await chat(gateway, "paid-own")).status).toBe(200);
    expect(gateway.records.map((r) => r.ownLogin)).toEqual([true, true]);
    // $2.40 at API prices: the own upstream's budget is spent, the overall one is not touched.
    const refused = await chat(gateway, "paid-own");
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^The daily budget of the upstream own \(\$2\.00\) is spent: \$2\.40/);
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    expect((await chat(gateway, "paid-1")).status).toBe(429);
    expect(gateway.records.at(-2)!.ownLogin).toBeUndefined();
    const state = join(gateway.configDir, "state");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    writeRequestLog(state, gateway.records);
    const env = cliEnv({ GATEWAY_CONFIG_DIR: gateway.configDir, GATEWAY_STATE_DIR: state });
    const stats = await runCli(["stats"], env);
    expect(stats.stdout).toContain("Estimated cost: $2.40\nOwn login, at API prices: $2.40 (not in the cost above, nor in the overall budget)");
    expect(stats.stdout).toMatch(/OWN LOGIN/);
    const json = JSON.parse((await runCli(["stats", "--json"], env)).stdout);
    expect(json.total).toMatchObject({ costUsd: 2.4, ownLoginCostUsd: 2.4 });
    expect(json.budgets.map((b: { scope: string; spentUsd: number }) => [b.scope, b.spentUsd])).toEqual([["all", 2.4], ["own", 2.4]]);
  });
});

describe("what was spent is read from the request log at start", () => {
  it("today's records count for the day and the month, earlier ones of this month for the month only", async () => {
    const paid = await upstream("paid");
    const state = join(tempConfigDir(), "state");
    mkdirSync(state, { recursive: true, mode: 0o700 });
    const now = Date.now();
    const today = spanOf("daily", now);
    const month = spanOf("monthly", now);
    // One record a minute after the day began, one before it (in this month when the day is not the first), one last month.
    const record = (time: number, requestId: string) => spentRecord(time, requestId);
    const earlier = Math.max(month.start, today.start - 60_000);
    const lines = [record(month.start - 60_000, "req_last_month"), record(earlier, "req_earlier"), record(Math.min(today.start + 60_000, now), "req_today")];
    writeRequestLog(state, lines);
    const spentToday = earlier >= today.start ? 6 : 3;
    const gateway = opened(
      await startTestGateway(undefined, {
        file: { prices: PRICES, budgets: { daily: spentToday + 0.5, monthly: spentToday === 6 ? 6.5 : 100 }, upstreams: { paid: { url: paid.url, key: "none" } } },
        env: { GATEWAY_STATE_DIR: state },
      }),
    );
    // Up to now: $3 a record of this month; the next request ($1.20) passes both budgets, the one after is refused.
    expect((await chat(gateway, "paid-1")).status).toBe(200);
    const refused = await chat(gateway, "paid-1");
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(spentToday === 6 ? /^The overall monthly budget \(\$6\.50\) is spent: \$7\.20/ : /^The overall daily budget \(\$3\.50\) is spent: \$4\.20/);
  });
});
