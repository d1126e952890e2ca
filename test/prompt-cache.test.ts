import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { scripted, type ChatScript } from "./helpers/chat-script.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startStrictFake, STRICT_KINDS } from "./helpers/strict/index.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";

/**
 * SPEC 11, What today's tools need (prompt caching survives translation), through the real server: the cached-token
 * counts a chat server reports, under each server's own names, reach each client's usage fields, JSON and streams,
 * read by the official SDKs, and the request's record.
 */

const opened = closeAfterEach();

/** What servers report for 1000 prompt tokens of which 600 were read from the cache (and 300 written, where they say). */
const USAGES: readonly [string, Record<string, unknown>, { read: number; write: number }][] = [
  ["OpenAI", { prompt_tokens: 1000, completion_tokens: 7, total_tokens: 1007, prompt_tokens_details: { cached_tokens: 600 } }, { read: 600, write: 0 }],
  // api-docs.deepseek.com/guides/kv_cache: `prompt_cache_hit_tokens` and `prompt_cache_miss_tokens`.
  ["DeepSeek", { prompt_tokens: 1000, completion_tokens: 7, total_tokens: 1007, prompt_cache_hit_tokens: 600, prompt_cache_miss_tokens: 400 }, { read: 600, write: 0 }],
  // openrouter.ai/docs/use-cases/usage-accounting: `cached_tokens` and `cache_write_tokens` under prompt_tokens_details.
  ["OpenRouter", { prompt_tokens: 1000, completion_tokens: 7, total_tokens: 1007, prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 } }, { read: 600, write: 300 }],
];

async function gatewayOver(usage: Record<string, unknown>) {
  const upstream = opened(await startStrictFake(STRICT_KINDS.generic, { script: scripted({ text: "cached answer", usage: usage as ChatScript["usage"] }) }));
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none" } } } }));
  return gateway;
}

describe("cached-token counts on a translated route (SPEC 11)", () => {
  it.each(USAGES)("%s: messages, Responses and Gemini clients read them in their own fields, JSON and streams, and so does the record", async (_server, usage, cache) => {
    const gateway = await gatewayOver(usage);
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const genai = new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });

    const messagesUsage = { input_tokens: 1000 - cache.read - cache.write, cache_read_input_tokens: cache.read, cache_creation_input_tokens: cache.write, output_tokens: 7 };
    const message = await anthropic.messages.create({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    expect(message.usage).toMatchObject(messagesUsage);
    const streamed = await anthropic.messages.stream({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(streamed.usage).toMatchObject(messagesUsage);

    const responsesUsage = { input_tokens: 1000, input_tokens_details: { cached_tokens: cache.read }, output_tokens: 7 };
    expect((await openai.responses.create({ model: "m", input: "hi" })).usage).toMatchObject(responsesUsage);
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of await openai.responses.create({ model: "m", input: "hi", stream: true })) if (event.type === "response.completed") completed = event.response;
    expect(completed?.usage).toMatchObject(responsesUsage);

    const geminiUsage = { promptTokenCount: 1000, cachedContentTokenCount: cache.read, candidatesTokenCount: 7 };
    expect((await genai.models.generateContent({ model: "m", contents: "hi" })).usageMetadata).toMatchObject(geminiUsage);
    let last: { usageMetadata?: unknown } | undefined;
    for await (const piece of await genai.models.generateContentStream({ model: "m", contents: "hi" })) last = piece;
    expect(last?.usageMetadata).toMatchObject(geminiUsage);

    await vi.waitFor(() => expect(gateway.records).toHaveLength(6));
    for (const record of gateway.records) {
      expect([record.translated, record.inputTokens, record.cacheReadTokens, record.cacheWriteTokens]).toEqual([record.translated, 1000, cache.read, cache.write || undefined]);
    }
  });
});
