import { GoogleGenAI } from "@google/genai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { geminiClient } from "../src/formats/gemini/translators.js";
import type { HubReply, HubUsage, Json } from "../src/translate/hub.js";
import type { GeminiHints } from "../src/formats/gemini/gemini-request.js";
import { hubReply, testContext, testSeal } from "./helpers/translate.js";

/** Chat replies as `generateContent` replies (replyFromHub), checked with the SDK Gemini CLI uses. */

const reply = (hub: HubReply, hints: GeminiHints = {}) => geminiClient.replyFromHub(hub, hints, testContext());
const candidate = (body: Json) => (body.candidates as Json[])[0]!;
const noUsage = { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 };

/** What the SDK makes of a reply body: the same object Gemini CLI gets from `generateContent`. */
async function throughSdk(body: Json) {
  const fetch = async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { fetch } });
  return ai.models.generateContent({ model: "client-model", contents: "hi" });
}

describe("replies", () => {
  const usage: HubUsage = { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 12 } };

  it("text with reasoning: thought part first when asked, usage in Gemini's terms, the client's model named", () => {
    expect(reply(hubReply({ content: "Hello", reasoning_content: "The user greets." }, "stop", usage), { includeThoughts: true })).toEqual({
      candidates: [{ content: { role: "model", parts: [{ text: "The user greets.", thought: true }, { text: "Hello" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 18, thoughtsTokenCount: 12, cachedContentTokenCount: 40, totalTokenCount: 130 },
      modelVersion: "client-model",
      responseId: "1",
    });
    expect(candidate(reply(hubReply({ content: "Hello", reasoning: "The user greets." })))).toEqual({ content: { role: "model", parts: [{ text: "Hello" }] }, finishReason: "STOP", index: 0 });
  });

  it("tool calls: arguments as objects (repaired when only their end is missing, the raw text under INVALID_JSON when not JSON), ids always present and distinct, STOP even when the upstream said stop", () => {
    const calls = [
      { id: "call_0", type: "function" as const, function: { name: "read_file", arguments: '{"path":"a"}' } },
      { id: "call_0", type: "function" as const, function: { name: "read_file", arguments: '{"path":"b"}' } },
      { id: "", type: "function" as const, function: { name: "read_file", arguments: '{"path": "c",' } },
      { id: "call_9", type: "function" as const, function: { name: "read_file", arguments: "{'path': 'd'}" } },
    ];
    expect(reply(hubReply({ content: "Let me look.", tool_calls: calls }, "stop"))).toEqual({
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { text: "Let me look." },
              { functionCall: { id: "call_0", name: "read_file", args: { path: "a" } } },
              { functionCall: { id: "call_1", name: "read_file", args: { path: "b" } } },
              { functionCall: { id: "call_2", name: "read_file", args: { path: "c" } } },
              { functionCall: { id: "call_9", name: "read_file", args: { INVALID_JSON: "{'path': 'd'}" } } },
            ],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: noUsage,
      modelVersion: "client-model",
      responseId: "1",
    });
  });

  it("seals the reasoning into the first call's thoughtSignature, which Gemini CLI keeps and sends back", () => {
    const calls = [
      { id: "call_1", type: "function" as const, function: { name: "read_file", arguments: '{"path":"a"}' } },
      { id: "call_2", type: "function" as const, function: { name: "read_file", arguments: '{"path":"b"}' } },
    ];
    const parts = (candidate(reply(hubReply({ content: null, reasoning: "Read both.", tool_calls: calls }, "tool_calls"))).content as { parts: Json[] }).parts;
    expect(parts).toEqual([
      { functionCall: { id: "call_1", name: "read_file", args: { path: "a" } }, thoughtSignature: testSeal.seal("Read both.", "reasoning") },
      { functionCall: { id: "call_2", name: "read_file", args: { path: "b" } } },
    ]);
    const next = geminiClient.toHub({ contents: [{ role: "user", parts: [{ text: "go" }] }, { role: "model", parts }] }, testContext()).request;
    expect(next.messages[1]).toMatchObject({ role: "assistant", reasoning: "Read both." });
  });

  it("finish reasons: length as MAX_TOKENS, content_filter as SAFETY, none or unknown as STOP, STOP whenever a call came, but MAX_TOKENS for a cut one (item 8)", () => {
    const finish = (reason: string | null, message: Parameters<typeof hubReply>[0] = { content: "x" }) => candidate(reply(hubReply(message, reason))).finishReason;
    expect([finish("stop"), finish("length"), finish("content_filter"), finish(null), finish("eos"), finish("tool_calls")]).toEqual(["STOP", "MAX_TOKENS", "SAFETY", "STOP", "STOP", "STOP"]);
    const call = { tool_calls: [{ id: "c", type: "function" as const, function: { name: "f", arguments: "{}" } }] };
    expect([finish("stop", call), finish("content_filter", call), finish("length", call)]).toEqual(["STOP", "STOP", "MAX_TOKENS"]);
  });

  it("an empty answer has no empty text part; without upstream usage the request's estimate stands for the prompt", () => {
    const body = geminiClient.replyFromHub(hubReply({ content: "" }), { inputTokens: 321 }, testContext());
    expect(candidate(body).content).toEqual({ role: "model", parts: [] });
    expect(body.usageMetadata).toEqual({ promptTokenCount: 321, candidatesTokenCount: 0, totalTokenCount: 321 });
  });

  it("a reasoning-only answer is sent as text, or Gemini CLI rejects it as empty and asks again", () => {
    expect(candidate(reply(hubReply({ content: null, reasoning_content: "The answer is 4." }), { includeThoughts: true })).content).toEqual({
      role: "model",
      parts: [{ text: "The answer is 4." }],
    });
  });
});

describe("JSON answers (Gemini CLI's router, table E row 20)", () => {
  const json = '{"complexity_reasoning":"one file","complexity_score":2}';
  const text = (content: string, hints: GeminiHints = { jsonText: true }) => (candidate(reply(hubReply({ content }), hints)).content as { parts: Json[] }).parts;

  it("fenced JSON is unwrapped, in a whole fence or inside prose; other text stays as it came", () => {
    expect(text("```json\n" + json + "\n```")).toEqual([{ text: json }]);
    expect(text("```\n" + json + "\n```\n")).toEqual([{ text: json }]);
    expect(text("Here it is:\n```json\n" + json + "\n```\nDone.")).toEqual([{ text: json }]);
    expect(text(json)).toEqual([{ text: json }]);
    expect(text("no json here")).toEqual([{ text: "no json here" }]);
    expect(text("```json\n" + json + "\n```", {})).toEqual([{ text: "```json\n" + json + "\n```" }]);
  });

  it("a reasoning-only JSON answer is unwrapped too", () => {
    expect(candidate(reply(hubReply({ content: "", reasoning_content: "```json\n" + json + "\n```" }), { jsonText: true, includeThoughts: true })).content).toEqual({
      role: "model",
      parts: [{ text: json }],
    });
  });

  it("the SDK reads the router's answer, and it parses as Gemini CLI's generateJson does", async () => {
    const response = await throughSdk(reply(hubReply({ content: "```json\n" + json + "\n```", reasoning_content: "Easy." }), { jsonText: true, includeThoughts: true }));
    expect(JSON.parse(response.text!.trim())).toEqual({ complexity_reasoning: "one file", complexity_score: 2 });
  });
});

describe("the @google/genai SDK accepts the replies", () => {
  // The SDK's `.text` getter warns on a console when a chunk also holds function calls; it is the expected shape.
  beforeEach(() => void vi.spyOn(console, "warn").mockImplementation(() => undefined));
  afterEach(() => void vi.restoreAllMocks());

  it("text, thoughts, function calls, finish reason and usage come out of the SDK's getters", async () => {
    const hub = hubReply(
      { content: "Checking.", reasoning_content: "Need the file.", tool_calls: [{ id: "call_x", type: "function", function: { name: "read_file", arguments: '{"file_path":"/a"}' } }] },
      "tool_calls",
      { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    );
    const response = await throughSdk(reply(hub, { includeThoughts: true }));
    expect(response.text).toBe("Checking.");
    expect(response.functionCalls).toEqual([{ id: "call_x", name: "read_file", args: { file_path: "/a" } }]);
    expect(response.candidates?.[0]?.content?.parts?.[0]).toEqual({ text: "Need the file.", thought: true });
    expect(response.candidates?.[0]?.finishReason).toBe("STOP");
    expect(response.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
    expect(response.modelVersion).toBe("client-model");
  });
});
