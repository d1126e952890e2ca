import { describe, expect, it } from "vitest";
import { usageParts } from "../src/translate/hub-usage.js";
import type { HubUsage, Json } from "../src/translate/hub.js";
import { hubReply, testContext } from "./helpers/translate.js";
import { clientOf } from "./helpers/format-translators.js";

/**
 * Usage as each format counts it (SPEC 10 rule 2, section 6 Tokens; research table E row 1): input, output, cache reads
 * and writes and reasoning, from whichever fields the chat upstream used, into every client format.
 */

const parts = (usage: Json) => usageParts(usage as unknown as HubUsage);

describe("usageParts reads the cache fields each chat upstream names its own way", () => {
  it.each([
    ["OpenAI", { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 600 }, completion_tokens_details: { reasoning_tokens: 20 } }, { cacheRead: 600, cacheWrite: 0, reasoning: 20 }],
    ["DeepSeek", { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_cache_hit_tokens: 600, prompt_cache_miss_tokens: 400 }, { cacheRead: 600, cacheWrite: 0, reasoning: 0 }],
    ["OpenRouter", { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 } }, { cacheRead: 600, cacheWrite: 300, reasoning: 0 }],
    ["LiteLLM (Claude behind it)", { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, cache_read_input_tokens: 600, cache_creation_input_tokens: 300, prompt_tokens_details: null }, { cacheRead: 600, cacheWrite: 300, reasoning: 0 }],
  ])("%s", (_, usage, expected) => {
    expect(parts(usage)).toEqual({ prompt: 1000, output: 50, input: 1000 - expected.cacheRead - expected.cacheWrite, ...expected });
  });

  it("counts nothing it cannot read: missing, negative or non-numeric figures are 0", () => {
    expect(usageParts(undefined)).toEqual({ input: 0, prompt: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 });
    expect(parts({ prompt_tokens: "12", completion_tokens: -3, total_tokens: null })).toEqual({ input: 0, prompt: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 });
  });
});

describe("one chat usage in every client format's terms", () => {
  const usage = { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 }, completion_tokens_details: { reasoning_tokens: 20 } };
  const reply = (format: "messages" | "responses" | "gemini") => clientOf(format).replyFromHub(hubReply({ content: "ok" }, "stop", usage as HubUsage), {}, testContext());

  it("messages: input without cached tokens, both cache keys, output with reasoning", () => {
    expect(reply("messages").usage).toEqual({ input_tokens: 100, output_tokens: 50, cache_creation_input_tokens: 300, cache_read_input_tokens: 600 });
  });

  it("responses: input with cached tokens, the three required fields, reasoning apart", () => {
    expect(reply("responses").usage).toEqual({ input_tokens: 1000, input_tokens_details: { cached_tokens: 600 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 1050 });
  });

  it("gemini: prompt with cached tokens, thoughts counted apart from the answer", () => {
    expect(reply("gemini").usageMetadata).toEqual({ promptTokenCount: 1000, candidatesTokenCount: 30, thoughtsTokenCount: 20, cachedContentTokenCount: 600, totalTokenCount: 1050 });
  });
});
