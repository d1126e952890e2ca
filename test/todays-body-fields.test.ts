import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { KindName } from "../src/kinds/index.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { STRICT_KINDS, startStrictFake, strictScript } from "./helpers/strict/index.js";

/**
 * SPEC 12, Body fields of today's clients on translated routes, through the real server: Claude Code 2.1.332's
 * `output_config.effort`, `speed`, `safeguards` (auto mode), `context_management` and `diagnostics` (the shapes its
 * request builder writes) reach a chat upstream of each kind as that kind takes them, or not at all.
 */

const opened = closeAfterEach();

const KINDS_TRIED = ["openai", "openrouter", "deepseek", "ollama", "generic"] as const satisfies readonly KindName[];
const BASE_PATH: Partial<Record<KindName, string>> = { openrouter: "/api" };

/** A Claude Code 2.1.332 turn with every field it adds, fast mode on. */
const claudeCodeTurn = (model: string) =>
  ({
    model,
    max_tokens: 4000,
    messages: [{ role: "user", content: "hi" }],
    thinking: { type: "adaptive" },
    output_config: { effort: "low" },
    speed: "fast",
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    safeguards: [{ type: "dangerous_tool_use", classifier_context: "The user asked for a file listing." }],
    diagnostics: { previous_message_id: "msg_01" },
  }) as unknown as Anthropic.MessageCreateParamsNonStreaming;

describe("today's body fields on a translated route (SPEC 12)", () => {
  it("effort in each kind's dialect, fast mode as OpenAI's priority tier, and safeguards, context_management and diagnostics never sent", async () => {
    // One server playing each kind's strict fake, chosen by the model the gateway sends (`m-<kind>`).
    const upstream = opened(await startFakeUpstream({ script: (request) => strictScript(STRICT_KINDS[KINDS_TRIED.find((kind) => request.body?.model === `m-${kind}`) ?? "generic"])(request) }));
    const upstreams = Object.fromEntries(KINDS_TRIED.map((kind) => [kind, { kind, url: `${upstream.url}${BASE_PATH[kind] ?? ""}`, models: [`m-${kind}`], formats: ["chat"], key: "none", reasoning: "effort" }]));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (const kind of KINDS_TRIED) {
      const reply = await client.messages.create(claudeCodeTurn(`m-${kind}`));
      expect(reply.content[0], kind).toMatchObject({ type: "text", text: "ok" });
    }
    const sent = Object.fromEntries(KINDS_TRIED.map((kind) => [kind, upstream.received.find((request) => request.body?.model === `m-${kind}`)!.body!]));
    for (const kind of KINDS_TRIED) {
      for (const field of ["speed", "safeguards", "context_management", "diagnostics", "output_config"]) expect(sent[kind], `${kind} ${field}`).not.toHaveProperty(field);
    }
    expect(KINDS_TRIED.filter((kind) => sent[kind]!.service_tier !== undefined)).toEqual(["openai"]);
    expect(sent.openai!.service_tier).toBe("priority");
    // The effort word (low), in each kind's words.
    expect(sent.openai!.reasoning_effort).toBe("low");
    expect(sent.ollama!.reasoning_effort).toBe("low");
    expect(sent.generic!.reasoning_effort).toBe("low");
    expect(sent.openrouter!.reasoning).toEqual({ effort: "low" });
    expect(sent.deepseek!.thinking).toEqual({ type: "enabled" });
  });

  it("an explicit thinking budget keeps precedence over the effort word", async () => {
    const upstream = opened(await startStrictFake(STRICT_KINDS.openai));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { openai: { kind: "openai", url: upstream.url, formats: ["chat"], key: "none", models: ["gpt-*"] } } } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    await client.messages.create({ model: "gpt-5.1", max_tokens: 4000, messages: [{ role: "user", content: "hi" }], thinking: { type: "enabled", budget_tokens: 3000 }, output_config: { effort: "low" } } as Anthropic.MessageCreateParamsNonStreaming);
    expect(upstream.received.at(-1)!.body!.reasoning_effort).toBe("medium");
  });
});
