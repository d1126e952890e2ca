import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientOf } from "./helpers/format-translators.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";

// Issue 53, one hub per request: a `minInputTokens` rule reads the request as the hub reads it, and the translation
// that follows reuses that hub instead of making its own (`ClientRequest.hub`); the format's `toHub` is the seam.

const opened = closeAfterEach();
afterEach(() => {
  vi.restoreAllMocks();
});

/** Claude Code's shape: the per-turn billing line first in the system prompt, then a long user turn. */
const BILLING = "x-anthropic-billing-header: cc_version=2.1.197; cc_entrypoint=cli; cch=5a1f3;";
const longTurn = (tag = "") => ({
  model: "claude-sonnet-4-5",
  max_tokens: 20_000,
  system: [{ type: "text" as const, text: BILLING }, { type: "text" as const, text: "You are Claude Code." }],
  messages: [{ role: "user" as const, content: `${tag}${"alpha beta gamma delta ".repeat(1_000)}` }],
});

async function gatewayWith(upstreams: Record<string, Record<string, unknown>>, route: Record<string, unknown>) {
  return opened(await startTestGateway(undefined, { file: { upstream: "main", retries: 0, upstreams, routes: [{ name: "long", when: { minInputTokens: 1_000 }, to: "long", ...route }] } }));
}

describe("a request under a minInputTokens rule that translates", () => {
  it("makes its hub once, for the rule and the translation, and sends what it sent before", async () => {
    const main = opened(await startFakeUpstream());
    const long = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from long" }) }) }));
    const gateway = await gatewayWith({ main: { url: main.url, key: "none" }, long: { url: long.url, key: "none", formats: ["chat"] } }, { model: "qwen3-coder:30b" });
    const toHub = vi.spyOn(clientOf("messages"), "toHub");
    const reply = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.create(longTurn());
    expect(reply.content).toEqual([{ type: "text", text: "from long" }]);
    expect(toHub).toHaveBeenCalledTimes(1);
    // The billing line never reaches a translated upstream (SPEC 12), now dropped from the one hub itself.
    expect(long.last().body).toMatchObject({ model: "qwen3-coder:30b", max_tokens: 20_000, messages: [{ role: "system", content: "You are Claude Code." }, { role: "user" }] });
    expect(main.received).toEqual([]);
    expect(gateway.records.map((r) => [r.rule, r.upstream, r.translated])).toEqual([["long", "long", "messages -> chat"]]);
  });

  it("makes it once for a tagged request too, whose tag the hub never holds", async () => {
    const main = opened(await startFakeUpstream());
    const long = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from long" }) }) }));
    const gateway = await gatewayWith({ main: { url: main.url, key: "none" }, long: { url: long.url, key: "none", formats: ["chat"] } }, { when: { minInputTokens: 1_000, tag: "big" } });
    const toHub = vi.spyOn(clientOf("messages"), "toHub");
    await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.create(longTurn("<gateway-route>big</gateway-route>\n"));
    expect(toHub).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(long.last().body)).not.toContain("gateway-route");
    expect(gateway.records.map((r) => r.rule)).toEqual(["long"]);
  });

  it("shares it with every candidate that translates, each capped by its own upstream as if it were the first", async () => {
    const busy = opened(await startFakeUpstream({ script: () => ({ status: 503, json: { error: { message: "overloaded" } } }) }));
    const spare = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from spare" }) }) }));
    const gateway = await gatewayWith(
      {
        main: { url: busy.url, key: "none" },
        long: { url: busy.url, key: "none", formats: ["chat"], maxOutputTokens: 1_000, fallback: ["spare"] },
        spare: { url: spare.url, key: "none", formats: ["chat"], maxOutputTokens: 8_000 },
      },
      {},
    );
    const toHub = vi.spyOn(clientOf("messages"), "toHub");
    const reply = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.create(longTurn());
    expect(reply.content).toEqual([{ type: "text", text: "from spare" }]);
    expect(toHub).toHaveBeenCalledTimes(1);
    expect(busy.last().body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 1_000 });
    expect(spare.last().body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 8_000 });
  });
});

describe("a count under a minInputTokens rule, answered by the gateway", () => {
  it("counts the hub the rule made", async () => {
    const main = opened(await startFakeUpstream());
    const long = opened(await startFakeUpstream());
    const gateway = await gatewayWith({ main: { url: main.url, key: "none" }, long: { url: long.url, key: "none", formats: ["chat"] } }, {});
    const toHub = vi.spyOn(clientOf("messages"), "toHub");
    const { input_tokens: counted } = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.countTokens(longTurn());
    expect(counted).toBeGreaterThan(1_000);
    expect(toHub).toHaveBeenCalledTimes(1);
    expect([main.received, long.received]).toEqual([[], []]);
    expect(gateway.records.map((r) => [r.rule, r.upstream])).toEqual([["long", "long"]]);
  });
});

describe("the rule's estimate", () => {
  it("is the local count's, without the billing line a translated upstream is never sent (SPEC 10 rule 6)", async () => {
    const main = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from main" }) }) }));
    const long = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from long" }) }) }));
    const local = opened(await startTestGateway(undefined, { file: { upstream: "main", upstreams: { main: { url: main.url, key: "none", formats: ["chat"] } } } }));
    const { input_tokens: counted } = await new Anthropic({ baseURL: local.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.countTokens(longTurn());
    const routedAt = async (min: number) => {
      const upstreams = { main: { url: main.url, key: "none", formats: ["chat"] }, long: { url: long.url, key: "none", formats: ["chat"] } };
      const gateway = opened(await startTestGateway(undefined, { file: { upstream: "main", upstreams, routes: [{ name: "long", when: { minInputTokens: min }, to: "long" }] } }));
      const reply = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }).messages.create(longTurn());
      return reply.content;
    };
    expect(await routedAt(counted)).toEqual([{ type: "text", text: "from long" }]);
    expect(await routedAt(counted + 1)).toEqual([{ type: "text", text: "from main" }]);
  });
});
