import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { scripted } from "./helpers/chat-script.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { startStrictFake, STRICT_KINDS } from "./helpers/strict/index.js";
import { testSeal } from "./helpers/translate.js";

/**
 * A session that moves between a chat-only upstream and one that speaks the client's format natively (SPEC 10 rule 4;
 * research table E row 8: `Invalid signature in thinking block` after switching providers). The gateway signs the
 * reasoning of the chat upstream; the next request, routed by its model to the native upstream, carries that reasoning
 * back, and the native upstream must get the request without it and otherwise as the client sent it, byte for byte;
 * back on the chat upstream, the reasoning is the assistant message's reasoning field again. Claude Code to Anthropic,
 * Codex to OpenAI, Gemini CLI to Google.
 */

const opened = closeAfterEach();

/** Claude Code's first turn, answered by the chat upstream: reasoning, a sentence, a Bash call. */
const FIRST_TURN = { reasoning: "Plan: list the files.", text: "Running ls.", toolCalls: [{ id: "call_1", name: "Bash", args: { command: "ls" } }] };
const BASH = { name: "Bash", description: "Run a shell command", input_schema: { type: "object" as const, properties: { command: { type: "string" } }, required: ["command"] } };

/**
 * A gateway with a chat-only upstream for `qwen*` (the generic strict fake) and a native one (Anthropic's or OpenAI's
 * format, the lenient fake: its requests are compared byte for byte) for the rest of the ids.
 */
async function twoUpstreams(native: "messages" | "responses" | "gemini", nativeReply: unknown) {
  const chat = opened(await startStrictFake(STRICT_KINDS.generic, { script: scripted(FIRST_TURN) }));
  const provider = opened(await startFakeUpstream({ script: () => ({ json: nativeReply }) }));
  const gateway: TestGateway = opened(await startTestGateway(undefined, {
    file: {
      upstream: "local",
      upstreams: {
        local: { url: chat.url, formats: ["chat"], key: "none", models: ["qwen*"] },
        provider: { url: provider.url, formats: [native], key: "none", models: ["claude-*", "gpt-*", "gemini-*"], retries: 0 },
      },
    },
  }));
  return { chat, provider, gateway };
}

/** The request as the upstream got it, as text. */
const sentText = (upstream: FakeUpstream) => upstream.last().raw.toString("utf8");

describe("Claude Code moving from a chat-only upstream to Anthropic's own and back", () => {
  const anthropicReply = { id: "msg_01A", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "One file." }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 30, output_tokens: 4 } };

  it("the native upstream gets the next request without the gateway's thinking block and otherwise byte for byte; the chat upstream gets it back as reasoning_content", async () => {
    const { chat, provider, gateway } = await twoUpstreams("messages", anthropicReply);
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const first = await client.messages.create({ model: "qwen3-coder", max_tokens: 1024, tools: [BASH], messages: [{ role: "user", content: "list files" }] });
    expect(first.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    const signed = first.content[0] as { thinking: string; signature: string };
    expect(testSeal.verify(signed.thinking, signed.signature)).toBe("reasoning_content");

    // An earlier turn that Anthropic answered keeps its own thinking, signature and redacted block untouched.
    const anthropicsTurn = [
      { type: "thinking", thinking: "Greet back.", signature: "EqQBCkgIARABGAIiQL8fSA0Nw+real/base64==" },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
      { type: "text", text: "Hello!" },
    ];
    const history = [
      { role: "user", content: "hi" },
      { role: "assistant", content: anthropicsTurn },
      { role: "user", content: [{ type: "text", text: "list files", cache_control: { type: "ephemeral" } }] },
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }, { type: "text", text: "<system-reminder>be brief</system-reminder>" }] },
    ];
    const next = { model: "claude-sonnet-4-5", max_tokens: 1024, system: [{ type: "text", text: "You are Claude Code." }], tools: [BASH], messages: history, metadata: { user_id: "user_1" } };
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(LOCAL_KEY), "anthropic-beta": "interleaved-thinking-2025-05-14" }, body: JSON.stringify(next) });
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("provider");
    expect(JSON.parse(res.body)).toEqual(anthropicReply);

    const sent = provider.last();
    expect(sent.path).toBe("/anthropic/v1/messages");
    expect(sent.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    const withoutOurs = { ...next, messages: history.map((message, n) => (n === 3 ? { ...message, content: first.content.slice(1) } : message)) };
    expect(sentText(provider)).toBe(JSON.stringify(withoutOurs));
    expect(sentText(provider)).not.toContain("gw1.");

    // Back on the chat upstream, the gateway's block is the assistant message's reasoning field again; Anthropic's is not.
    const back = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ ...next, model: "qwen3-coder" }) });
    expect(back.status).toBe(200);
    const messages = chat.last().body!.messages as Record<string, unknown>[];
    expect(messages.filter((message) => message.role === "assistant")).toEqual([
      { role: "assistant", content: "Hello!" },
      { role: "assistant", content: "Running ls.", tool_calls: [{ id: "call_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }], reasoning_content: "Plan: list the files." },
    ]);
  });
});

describe("Codex moving from a chat-only upstream to OpenAI's own", () => {
  const openaiReply = { id: "resp_1", object: "response", status: "completed", model: "gpt-5", output: [], usage: { input_tokens: 5, output_tokens: 0, total_tokens: 5 } };

  it("the native upstream gets the next request without the gateway's sealed reasoning item and otherwise byte for byte", async () => {
    const { provider, gateway } = await twoUpstreams("responses", openaiReply);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const tools = [{ type: "function" as const, name: "Bash", parameters: BASH.input_schema, strict: false }];
    const first = await client.responses.create({ model: "qwen3-coder", input: "list files", tools, store: false, include: ["reasoning.encrypted_content"] });
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect((first.output[0] as { encrypted_content: string }).encrypted_content).toMatch(/^gw1\./);

    const openaisOwn = { type: "reasoning", id: "rs_openai", summary: [], encrypted_content: "gAAAAABoXreal-encrypted-reasoning" };
    const input = [openaisOwn, { type: "message", role: "user", content: [{ type: "input_text", text: "list files" }] }, ...first.output, { type: "function_call_output", call_id: "call_1", output: "a.txt" }];
    const next = { model: "gpt-5", input, tools, store: false, stream: false, include: ["reasoning.encrypted_content"], prompt_cache_key: "session-1" };
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/responses", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify(next) });
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("provider");
    expect(sentText(provider)).toBe(JSON.stringify({ ...next, input: input.filter((item) => item !== first.output[0]) }));
  });
});

describe("Gemini CLI moving from a chat-only upstream to Google's own", () => {
  const googleReply = { candidates: [{ content: { role: "model", parts: [{ text: "One file." }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 3, totalTokenCount: 12 } };

  it("Google gets its stand-in in place of the gateway's thoughtSignature on the call, and the rest byte for byte", async () => {
    const { provider, gateway } = await twoUpstreams("gemini", googleReply);
    const genai = new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
    const declarations = [{ name: "Bash", description: "Run a shell command", parametersJsonSchema: BASH.input_schema }];
    const first = await genai.models.generateContent({ model: "qwen3-coder", contents: "list files", config: { tools: [{ functionDeclarations: declarations }] } });
    const parts = first.candidates![0]!.content!.parts!;
    const callPart = parts.find((part) => part.functionCall)!;
    expect(callPart.thoughtSignature).toMatch(/^gw1\./);

    const contents = [
      { role: "user", parts: [{ text: "list files" }] },
      { role: "model", parts },
      { role: "user", parts: [{ functionResponse: { id: callPart.functionCall!.id, name: "Bash", response: { output: "a.txt" } } }] },
    ];
    const next = { contents, tools: [{ functionDeclarations: declarations }], generationConfig: { temperature: 1 } };
    const res = await rawRequest(gateway.url, { method: "POST", path: "/gemini/v1beta/models/gemini-2.5-pro:generateContent", headers: { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" }, body: JSON.stringify(next) });
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("provider");
    const expected = { ...next, contents: contents.map((content, n) => (n === 1 ? { ...content, parts: parts.map((part) => (part === callPart ? { ...part, thoughtSignature: "skip_thought_signature_validator" } : part)) } : content)) };
    expect(sentText(provider)).toBe(JSON.stringify(expected));
  });
});
