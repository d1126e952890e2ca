import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { startPrometheus, type PromSample } from "./helpers/prometheus.js";

/**
 * SPEC 12, Metrics, against a real Prometheus: it scrapes the gateway's `/metrics` with the local key (read from a
 * file, never an argument) and its HTTP API then answers for the requests the official SDKs sent.
 */

const opened = closeAfterEach();

/**
 * Resolves after each scrape of `/metrics` this process answers (Node's `http.server.response.finish` diagnostics
 * channel): the event a test waits on before it asks Prometheus again.
 */
function scrapes() {
  let next: (() => void) | undefined;
  const listener = (message: unknown) => {
    if ((message as { request: IncomingMessage }).request.url === "/metrics") next?.();
  };
  subscribe("http.server.response.finish", listener);
  return {
    next: () => new Promise<void>((resolve) => (next = resolve)),
    close: async () => void unsubscribe("http.server.response.finish", listener),
  };
}

/** Asks Prometheus after each scrape until `test` holds for the query's answer. */
async function queryUntil(prometheus: { query(e: string): Promise<PromSample[]> }, scraped: ReturnType<typeof scrapes>, expression: string, test: (samples: PromSample[]) => boolean): Promise<PromSample[]> {
  for (;;) {
    const samples = await prometheus.query(expression);
    if (test(samples)) return samples;
    await scraped.next();
  }
}

describe("a real Prometheus scraping the gateway", () => {
  it("holds gateway_requests_total and gen_ai_client_token_usage for the requests sent, with the GenAI labels", async () => {
    const scraped = opened(scrapes());
    const upstream = opened(await startFakeUpstream());
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { team: { url: upstream.url } } } }));
    const prometheus = opened(await startPrometheus(gateway.url, LOCAL_KEY));
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 32, messages: [{ role: "user", content: "hi" }] });

    const requests = await queryUntil(prometheus, scraped, "gateway_requests_total", (samples) => samples.reduce((sum, s) => sum + s.value, 0) === 4);
    expect(requests.map((s) => [s.metric.format, s.metric.upstream, s.metric.status_code, s.metric.job, s.value]).sort()).toEqual([
      ["chat", "team", "200", "gateway", 3],
      ["messages", "team", "200", "gateway", 1],
    ]);
    const inputs = gateway.records.filter((r) => r.model === "gpt-4o-mini").reduce((sum, r) => sum + r.inputTokens!, 0);
    const usage = await queryUntil(prometheus, scraped, 'gen_ai_client_token_usage_sum{gen_ai_token_type="input"}', (samples) => samples.length === 2);
    const chat = usage.find((s) => s.metric.gen_ai_request_model === "gpt-4o-mini")!;
    expect(chat.metric).toMatchObject({ gen_ai_operation_name: "chat", gen_ai_provider_name: "generic", gen_ai_response_model: "gpt-4o-mini" });
    expect(chat.value).toBe(inputs);
    expect(await prometheus.target()).toEqual(expect.objectContaining({ health: "up", lastError: "" }));
  }, 60_000);

  it("is refused with a wrong key: the target is down with the 401", async () => {
    const scraped = opened(scrapes());
    const gateway = opened(await startTestGateway("echo"));
    const prometheus = opened(await startPrometheus(gateway.url, "gw-not-this-gateways-key"));
    await scraped.next();
    let target = await prometheus.target();
    while (target.health === "unknown") {
      await scraped.next();
      target = await prometheus.target();
    }
    expect(target).toEqual(expect.objectContaining({ health: "down", lastError: "server returned HTTP status 401 Unauthorized" }));
  }, 60_000);
});
