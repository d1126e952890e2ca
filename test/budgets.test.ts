import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { spanOf } from "../src/budgets/periods.js";
import { formatDateTime } from "../src/request-log/format.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";
import { spentRecord, writeRequestLog } from "./helpers/request-records.js";

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
  return opened(await startFakeUpstream({ script: () => ({ json: completion({ content: `from ${name}` }) }) }));
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
