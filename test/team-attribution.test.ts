import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { loadPricer } from "../src/pricing/pricer.js";
import { upstreamCost } from "../src/team/upstream-cost.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { litellmCost, startStrictLiteLLM } from "./helpers/strict/litellm.js";

/**
 * SPEC 12, Attribution and the team's own cost, against the strict LiteLLM: a team upstream gets `x-gateway-client`
 * and the client's session header as it came; the cost LiteLLM states in its reply is what the record, `stats` and
 * budgets use (`costSource: "upstream"`), where the gateway's estimate priced an alias by its name.
 */

const opened = closeAfterEach();

async function teamGateway(team: boolean) {
  const litellm = opened(await startStrictLiteLLM());
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { team: { kind: "litellm", url: litellm.url, key: "none", team } } } }));
  return { litellm, gateway };
}

describe("attribution headers to a team upstream", () => {
  it("Claude Code's session id and the client's name reach the team gateway as they came", async () => {
    const { litellm, gateway } = await teamGateway(true);
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0, defaultHeaders: { "user-agent": "claude-cli/2.1.197 (external, cli)", "x-claude-code-session-id": "5c1e2d3f-session" } });
    await client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    expect(litellm.last().headers).toMatchObject({ "x-gateway-client": "claude-code", "x-claude-code-session-id": "5c1e2d3f-session" });
  });

  it("Codex's session_id and conversation_id, and an SDK by its own name", async () => {
    const { litellm, gateway } = await teamGateway(true);
    const codex = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0, defaultHeaders: { "user-agent": "codex_cli_rs/0.156.1 (Debian 12; x86_64)", session_id: "019a-codex", conversation_id: "019a-conv" } });
    await codex.responses.create({ model: "gpt-4o-mini", input: "hi" });
    expect(litellm.last().headers).toMatchObject({ "x-gateway-client": "codex", session_id: "019a-codex", conversation_id: "019a-conv" });
    const sdk = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await sdk.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(litellm.last().headers["x-gateway-client"]).toBe("openai-sdk");
  });

  it("an upstream that is not a team's gets no attribution header", async () => {
    const { litellm, gateway } = await teamGateway(false);
    const sdk = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await sdk.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(litellm.last().headers["x-gateway-client"]).toBeUndefined();
  });
});

describe("the team's own cost of a request", () => {
  it("chat's x-litellm-response-cost and messages' x-litellm-response-cost-original are the record's cost, ahead of the estimate", async () => {
    const { gateway } = await teamGateway(true);
    const sdk = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await sdk.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] });
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    // LiteLLM prices the alias by the model behind it (gpt-4o-mini): 12 x 1.5e-7 + 5 x 6e-7.
    const stated = Math.round(litellmCost("claude-sonnet-4-5", { input: 12, output: 5 }) * 1e6) / 1e6;
    expect(gateway.records.map((record) => [record.format, record.upstreamCostUsd, record.costSource])).toEqual([
      ["chat", stated, "upstream"],
      ["messages", stated, "upstream"],
    ]);
    const price = await loadPricer({ prices: {}, upstreams: [] });
    expect(gateway.records.map(price)).toEqual([stated, stated]);
    // The estimate alone would have priced the alias by its name, as Claude Sonnet.
    expect(price({ ...gateway.records[0]!, upstreamCostUsd: undefined, costSource: "estimate" })).toBeGreaterThan(stated * 10);
  });

  it("a reply without a stated cost is an estimate; a stated 0 or a word is no statement", () => {
    expect(upstreamCost({ "x-litellm-response-cost": "0.0000048" })).toBe(0.000005);
    expect(upstreamCost({ "x-litellm-response-cost": "None", "x-litellm-response-cost-original": "0.002" })).toBe(0.002);
    expect(upstreamCost({ "x-litellm-response-cost": "0.0" })).toBeUndefined();
    expect(upstreamCost({ "x-litellm-response-cost": "NaN" })).toBeUndefined();
    expect(upstreamCost({})).toBeUndefined();
  });
});
