import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../src/config/index.js";
import { keySources } from "../src/cli/upstream-keys.js";
import { cutLabel, ModelLabels, OTHER_MODEL } from "../src/telemetry/label-caps.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";

/**
 * SPEC 12, Metrics, through a real gateway on loopback: `GET /metrics` in the Prometheus text format behind the local
 * key, the GenAI names and labels, the gateway's own counters and gauges, the label caps, and never a key.
 */

const opened = closeAfterEach();

/** `GET /metrics` with the local key, another key, or (`null`) none. */
const scrape = (gateway: TestGateway, key: string | null = LOCAL_KEY) =>
  rawRequest(gateway.url, { method: "GET", path: "/metrics", headers: key === null ? {} : { authorization: `Bearer ${key}` } });

/** The value of one sample line, by its name and labels exactly as the exposition writes them. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function pair(file: Record<string, unknown> = {}) {
  const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "hi there" }) }) }));
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { team: { url: upstream.url, kind: "vllm" } }, ...file } }));
  return { upstream, gateway };
}

describe("GET /metrics", () => {
  it("is refused without the local key with the chat family's 401, and answers the text format with it", async () => {
    const { gateway } = await pair();
    for (const key of [null, "gw-wrong"]) {
      const refused = await scrape(gateway, key);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body)).toEqual({
        error: { message: "Missing or wrong local key. Send Authorization: Bearer <key> with the key printed by `gateway env`.", type: "authentication_error", param: null, code: "invalid_api_key" },
      });
    }
    const answered = await scrape(gateway);
    expect(answered.status).toBe(200);
    expect(answered.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(answered.body).toContain("# TYPE process_cpu_seconds_total counter");
    expect(answered.body).toContain("# TYPE nodejs_heap_size_total_bytes gauge");
    // A scrape is not traffic; the refusals were.
    expect(gateway.records.map((r) => [r.path, r.status])).toEqual([
      ["/metrics", 401],
      ["/metrics", 401],
    ]);
  });

  it("counts requests and their tokens under the GenAI names, with the upstream's kind as the provider", async () => {
    const { gateway } = await pair();
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await openai.chat.completions.create({ model: "qwen-7b", messages: [{ role: "user", content: "hi" }] });
    const text = (await scrape(gateway)).body;
    const labels = 'gen_ai_operation_name="chat",gen_ai_provider_name="vllm",gen_ai_request_model="qwen-7b",gen_ai_response_model="qwen-7b"';
    const usage = gateway.records[0]!;
    expect(sample(text, `gen_ai_client_token_usage_count{${labels},gen_ai_token_type="input"}`)).toBe(3);
    expect(sample(text, `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="input"}`)).toBe(3 * usage.inputTokens!);
    expect(sample(text, `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="output"}`)).toBe(3 * usage.outputTokens!);
    expect(sample(text, `gen_ai_client_operation_duration_seconds_count{${labels}}`)).toBe(3);
    expect(sample(text, 'gateway_requests_total{format="chat",upstream="team",route="",status_code="200"}')).toBe(3);
    expect(sample(text, "gateway_inflight_requests")).toBe(0);
  });

  it("times a stream's first token, labels a failure with error_type, and prices with the user's prices", async () => {
    const upstream = opened(
      await startFakeUpstream({
        script: (request) => ((request.body as { model?: string }).model === "broken" ? { status: 400, json: { error: { message: "no" } } } : { json: completion({ content: "ok" }) }),
      }),
    );
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { paid: { url: upstream.url } }, prices: { "paid-*": { input: 1_000_000, output: 0 } } } }));
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: "paid-1", stream: true, messages: [{ role: "user", content: "hi" }] });
    for await (const _ of stream);
    await openai.chat.completions.create({ model: "paid-1", messages: [{ role: "user", content: "hi" }] });
    await expect(openai.chat.completions.create({ model: "broken", messages: [{ role: "user", content: "hi" }] })).rejects.toThrow();
    const text = (await scrape(gateway)).body;
    expect(sample(text, 'gen_ai_server_time_to_first_token_seconds_count{gen_ai_operation_name="chat",gen_ai_provider_name="generic",gen_ai_request_model="paid-1",gen_ai_response_model="paid-1"}')).toBe(1);
    expect(sample(text, 'gen_ai_client_operation_duration_seconds_count{gen_ai_operation_name="chat",gen_ai_provider_name="generic",gen_ai_request_model="broken",gen_ai_response_model="broken",error_type="400"}')).toBe(1);
    const paid = gateway.records.filter((r) => r.model === "paid-1").reduce((sum, r) => sum + r.inputTokens!, 0);
    expect(sample(text, 'gateway_cost_usd_total{upstream="paid",gen_ai_request_model="paid-1"}')).toBeCloseTo(paid, 6);
  });

  it("shows each budget's spend and limit, and a resting key by its name, never its value", async () => {
    const upstream = opened(
      await startFakeUpstream({ script: (request) => (request.headers.authorization === "Bearer sk-first-key-0123456789" ? { status: 429, headers: { "retry-after": "120" }, json: { error: { message: "slow down" } } } : { json: completion({ content: "ok" }) }) }),
    );
    const env = { FIRST_KEY: "sk-first-key-0123456789", SECOND_KEY: "sk-second-key-0123456789" };
    const file = { upstreams: { pool: { url: upstream.url, key: ["env:FIRST_KEY", "env:SECOND_KEY"], budgets: { daily: 5 } } }, budgets: { monthly: 50 }, prices: { "*": { input: 1, output: 1 } } };
    const gateway = opened(await startTestGateway(undefined, { file, env, keySourceFor: (config: GatewayConfig) => keySources({ config, env, store: memoryKeyStore() }) }));
    const sent = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });
    expect(sent.status).toBe(200);
    const text = (await scrape(gateway)).body;
    expect(sample(text, 'gateway_key_resting{upstream="pool",key="env:FIRST_KEY"}')).toBe(1);
    expect(sample(text, 'gateway_key_resting{upstream="pool",key="env:SECOND_KEY"}')).toBe(0);
    expect(sample(text, 'gateway_budget_limit_usd{scope="all",period="monthly"}')).toBe(50);
    expect(sample(text, 'gateway_budget_limit_usd{scope="pool",period="daily"}')).toBe(5);
    const spent = gateway.records[0]!;
    expect(sample(text, 'gateway_budget_spent_usd{scope="pool",period="daily"}')).toBeCloseTo((spent.inputTokens! + spent.outputTokens!) / 1e6, 6);
    for (const value of [...Object.values(env), FAKE_UPSTREAM_KEY, LOCAL_KEY]) expect(text).not.toContain(value);
  });

  it("cuts a model id to 100 characters, and counts models past the 500th as other", async () => {
    const { gateway } = await pair();
    const send = (model: string) =>
      rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });
    const long = `m-${"x".repeat(300)}`;
    expect((await send(long)).status).toBe(200);
    for (let i = 0; i < 500; i++) await send(`model-${i}`);
    const text = (await scrape(gateway)).body;
    expect(text).toContain(`gen_ai_request_model="${long.slice(0, 100)}"`);
    expect(text).not.toContain(long.slice(0, 101));
    expect(text).toContain('gen_ai_request_model="model-498"');
    expect(text).not.toContain('gen_ai_request_model="model-499"');
    const other = `gen_ai_operation_name="chat",gen_ai_provider_name="vllm",gen_ai_request_model="${OTHER_MODEL}",gen_ai_response_model="${OTHER_MODEL}"`;
    expect(sample(text, `gen_ai_client_operation_duration_seconds_count{${other}}`)).toBe(1);
  }, 60_000);
});

describe("label caps", () => {
  it("cut whole code points, and keep the first values of each metric", () => {
    expect(cutLabel("a".repeat(100))).toBe("a".repeat(100));
    expect(cutLabel("😀".repeat(150))).toBe("😀".repeat(100));
    const labels = new ModelLabels(2);
    expect([labels.label("a"), labels.label("b"), labels.label("c"), labels.label("a"), labels.label(undefined)]).toEqual(["a", "b", OTHER_MODEL, "a", ""]);
  });
});
