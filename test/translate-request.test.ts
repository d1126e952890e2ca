import { describe, expect, it } from "vitest";
import { type Format } from "../src/formats/index.js";
import { translateRequest, type TranslateContext } from "../src/translate/index.js";
import type { Json } from "../src/translate/hub.js";
import { testContext } from "./helpers/translate.js";
import { clientOf, upstreamOf } from "./helpers/format-translators.js";

/**
 * What `translateRequest` applies once, whatever the client's format, because it depends on the upstream (SPEC 10):
 * its model id, streams that ask a chat upstream for usage, its output cap (config `maxOutputTokens`) on a limit the
 * client gave, and reasoning effort only for an upstream whose config says it takes it.
 */

/** The same question in each client format, with the output limit (when given) and the thinking effort each can say. */
const REQUESTS: Record<Exclude<Format, "chat">, (limit: number | undefined) => Json> = {
  messages: (limit) => ({ model: "claude-sonnet-4-5", ...(limit ? { max_tokens: limit } : {}), thinking: { type: "enabled", budget_tokens: 31999 }, messages: [{ role: "user", content: "hi" }] }),
  responses: (limit) => ({ model: "gpt-5-codex", ...(limit ? { max_output_tokens: limit } : {}), reasoning: { effort: "high", summary: "auto" }, input: "hi" }),
  gemini: (limit) => ({ contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { ...(limit ? { maxOutputTokens: limit } : {}), thinkingConfig: { thinkingBudget: 24576 } } }),
};

const toChat = (format: keyof typeof REQUESTS, limit: number | undefined, stream: boolean, ctx: Partial<TranslateContext> = {}) =>
  translateRequest(clientOf(format).toHub(REQUESTS[format](limit), testContext(ctx)), upstreamOf("chat"), stream, testContext(ctx));

describe.each(Object.keys(REQUESTS) as (keyof typeof REQUESTS)[])("a %s request to a chat upstream", (format) => {
  it("names the upstream's model, and asks a stream for its usage", () => {
    expect(toChat(format, 1000, true).body).toMatchObject({ model: "upstream-model", stream: true, stream_options: { include_usage: true } });
    const whole = toChat(format, 1000, false).body;
    expect(whole).not.toHaveProperty("stream");
    expect(whole).not.toHaveProperty("stream_options");
  });

  it("caps the client's output limit at the upstream's maxOutputTokens, keeps a smaller one, and sets none when the client gave none", () => {
    expect(toChat(format, 64000, true, { maxOutputTokens: 16000 }).body.max_tokens).toBe(16000);
    expect(toChat(format, 8000, true, { maxOutputTokens: 16000 }).body.max_tokens).toBe(8000);
    expect(toChat(format, 64000, true).body.max_tokens).toBe(64000);
    expect(toChat(format, undefined, true, { maxOutputTokens: 16000 }).body).not.toHaveProperty("max_tokens");
  });

  it("sends reasoning_effort only to an upstream that takes it (config reasoning: effort)", () => {
    expect(toChat(format, 64000, false, { reasoningEffort: true }).body.reasoning_effort).toBe("high");
    expect(toChat(format, 64000, false).body).not.toHaveProperty("reasoning_effort");
  });

  it("estimates the input for the reply side before the upstream reports usage", () => {
    expect(toChat(format, 1000, true).hints.inputTokens).toBeGreaterThan(0);
  });
});

describe("a chat request to a messages upstream", () => {
  const toMessages = (request: Json, ctx: Partial<TranslateContext> = {}) =>
    translateRequest(clientOf("chat").toHub({ model: "qwen3-coder", messages: [{ role: "user", content: "hi" }], ...request }, testContext(ctx)), upstreamOf("messages"), true, testContext(ctx)).body;

  it("takes max_completion_tokens as the limit, capped like max_tokens, and 4096 when the client gave neither", () => {
    expect(toMessages({ max_completion_tokens: 50000 }, { maxOutputTokens: 8000 }).max_tokens).toBe(8000);
    expect(toMessages({ max_completion_tokens: 2000 }, { maxOutputTokens: 8000 }).max_tokens).toBe(2000);
    expect(toMessages({ max_tokens: 50000 }, { maxOutputTokens: 8000 }).max_tokens).toBe(8000);
    expect(toMessages({}).max_tokens).toBe(4096);
    expect(toMessages({}, { maxOutputTokens: 1024 }).max_tokens).toBe(1024);
  });

  it("sends none of chat's own fields (stream_options, max_completion_tokens, reasoning_effort as such)", () => {
    const body = toMessages({ max_completion_tokens: 2000, stream_options: { include_usage: true }, reasoning_effort: "low", n: 1, seed: 3 }, { reasoningEffort: true });
    expect(Object.keys(body).sort()).toEqual(["max_tokens", "messages", "model", "stream"]);
  });
});
