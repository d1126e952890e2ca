import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { claimPath } from "../src/formats/index.js";
import { ClientRequest } from "../src/request/client-request.js";
import { testSeal } from "./helpers/translate.js";
// The estimate's bounds answer at once once the format's translators have loaded (a gateway's first such request waits for them).
import "./helpers/format-translators.js";

type Json = Record<string, unknown>;

const SEGMENTS = { messages: "anthropic", gemini: "gemini" };
const PATHS = {
  chat: "/v1/chat/completions",
  messages: "/anthropic/v1/messages",
  responses: "/v1/responses",
  gemini: "/gemini/v1beta/models/gemini-2.5-pro:generateContent",
};

/** A request as the gateway reads it: its endpoint claimed from the path, its body parsed. */
function request(format: keyof typeof PATHS, body: Json | undefined, headers: Record<string, string> = {}, path: string = PATHS[format]): ClientRequest {
  const endpoint = claimPath("POST", path, headers, SEGMENTS)!;
  const model = endpoint.pathModel ?? (typeof body?.model === "string" ? body.model : undefined);
  return new ClientRequest(endpoint, "", headers, body && Buffer.from(JSON.stringify(body)), body, model, false);
}

const claudeCode = JSON.parse(readFileSync(new URL("./fixtures/claude-code-2.1.197-messages.json", import.meta.url), "utf8")) as { headers: Record<string, string>; body: Json };
const png = "iVBORw0KGgo=";

describe("what a request says about itself (SPEC 11, Routes), each format answering for its own body", () => {
  it("a Claude Code request: its tools, its thinking, no image, its client and session", () => {
    const r = request("messages", claudeCode.body, { ...claudeCode.headers, "x-claude-code-session-id": "5f0c-session" });
    expect(r.tools()).toEqual(["Bash", "Edit", "Read", "WebSearch"]);
    expect(r.asksThinking()).toBe(true);
    expect(r.hasImage()).toBe(false);
    expect(r.routeTag()).toBeUndefined();
    expect(r.client()).toBe("claude-code");
    expect(r.sessionId()).toBe("5f0c-session");
  });

  it("messages: an image inside a tool result counts, thinking disabled does not ask, a tag opens any system block or the first user message", () => {
    const toolImage = { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }] };
    const body = { model: "m", max_tokens: 9, thinking: { type: "disabled" }, system: [{ type: "text", text: "billing" }, { type: "text", text: "  <gateway-route>vision</gateway-route> You look at images." }], messages: [{ role: "user", content: [toolImage] }] };
    const r = request("messages", body);
    expect([r.hasImage(), r.asksThinking(), r.routeTag()]).toEqual([true, false, "vision"]);
    const inUser = request("messages", { model: "m", max_tokens: 9, system: "plain", messages: [{ role: "user", content: "<gateway-route>fast</gateway-route>hi" }] });
    expect(inUser.routeTag()).toBe("fast");
    const midText = request("messages", { model: "m", max_tokens: 9, system: "see <gateway-route>fast</gateway-route>", messages: [{ role: "user", content: "hi" }] });
    expect(midText.routeTag()).toBeUndefined();
  });

  it("chat: image_url parts in a tool message, function and custom tools, reasoning_effort other than none or minimal, the system message's tag", () => {
    const body = {
      model: "m",
      reasoning_effort: "minimal",
      tools: [{ type: "function", function: { name: "read_file" } }, { type: "custom", custom: { name: "apply_patch" } }],
      messages: [
        { role: "system", content: "<gateway-route>local</gateway-route>You are terse." },
        { role: "user", content: "look" },
        { role: "tool", tool_call_id: "c1", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] },
      ],
    };
    const r = request("chat", body, { "user-agent": "QwenCode/0.14.2 (linux; x64)" });
    expect([r.hasImage(), r.tools(), r.asksThinking(), r.routeTag(), r.client()]).toEqual([true, ["read_file", "apply_patch"], false, "local", "qwen-code"]);
    expect(request("chat", { ...body, reasoning_effort: "high" }).asksThinking()).toBe(true);
    expect(request("chat", { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "<gateway-route>x</gateway-route>" }] }] }).routeTag()).toBe("x");
  });

  it("responses: Codex's additional_tools and namespaces, a hosted web search by its type, an image in a function output, reasoning.effort, the instructions' tag", () => {
    const body = {
      model: "gpt-5.1-codex",
      instructions: "<gateway-route>codex</gateway-route> You are Codex.",
      reasoning: { effort: "none" },
      tools: [{ type: "web_search" }],
      input: [
        { type: "additional_tools", tools: [{ type: "namespace", name: "fs", tools: [{ type: "function", name: "read" }] }, { type: "custom", name: "exec" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_image", image_url: `data:image/png;base64,${png}` }] },
      ],
    };
    const r = request("responses", body, { "user-agent": "codex_cli_rs/0.156.1 (Debian 12; x86_64) xterm" });
    expect([r.hasImage(), r.tools(), r.asksThinking(), r.routeTag(), r.client()]).toEqual([true, ["web_search", "read", "exec"], false, "codex", "codex"]);
    expect(request("responses", { ...body, reasoning: { effort: "medium" } }).asksThinking()).toBe(true);
    expect(request("responses", { model: "m", input: "<gateway-route>short</gateway-route> hi" }).routeTag()).toBe("short");
  });

  it("gemini: an image in a function response, declarations and built-in tools, a thinking budget other than 0 or includeThoughts, the system instruction's tag", () => {
    const body = {
      systemInstruction: { parts: [{ text: "<gateway-route>pro</gateway-route>" }] },
      tools: [{ functionDeclarations: [{ name: "run_shell_command" }] }, { googleSearch: {} }],
      generationConfig: { thinkingConfig: { thinkingBudget: 0 } },
      contents: [
        { role: "user", parts: [{ text: "look" }] },
        { role: "user", parts: [{ functionResponse: { name: "read", response: {}, parts: [{ inlineData: { mimeType: "image/png", data: png } }] } }] },
      ],
    };
    const r = request("gemini", body, { "user-agent": "GeminiCLI/0.61.0/gemini-2.5-pro (linux; x64; terminal)" });
    expect([r.hasImage(), r.tools(), r.asksThinking(), r.routeTag(), r.client()]).toEqual([true, ["run_shell_command", "googleSearch"], false, "pro", "gemini-cli"]);
    expect(request("gemini", { ...body, generationConfig: { thinkingConfig: { thinkingBudget: 0, includeThoughts: true } } }).asksThinking()).toBe(true);
    expect(request("gemini", { ...body, generationConfig: { thinkingConfig: { thinkingBudget: -1 } } }).asksThinking()).toBe(true);
    expect(request("gemini", { contents: [{ parts: [{ inlineData: { mimeType: "application/pdf", data: "JVBE" } }] }] }).hasImage()).toBe(false);
  });

  it("gemini in snake_case, as Google's REST examples write it, says what camelCase says", () => {
    const body = {
      system_instruction: { parts: [{ text: "<gateway-route>pro</gateway-route>" }] },
      tools: [{ function_declarations: [{ name: "run_shell_command" }] }, { google_search: {} }],
      generation_config: { thinking_config: { thinking_budget: 1024 } },
      contents: [{ role: "user", parts: [{ inline_data: { mime_type: "image/png", data: png } }] }],
    };
    const r = request("gemini", body);
    expect([r.hasImage(), r.tools(), r.asksThinking(), r.routeTag()]).toEqual([true, ["run_shell_command", "googleSearch"], true, "pro"]);
    expect(request("gemini", { ...body, generation_config: { thinking_config: { include_thoughts: true, thinking_budget: 0 } } }).asksThinking()).toBe(true);
    expect(request("gemini", { ...body, generation_config: { thinking_config: { thinking_budget: 0 } } }).asksThinking()).toBe(false);
    expect(request("gemini", { contents: [{ parts: [{ file_data: { mime_type: "image/jpeg", file_uri: "gs://b/i.jpg" } }] }] }).hasImage()).toBe(true);
    // A :countTokens body in its generateContentRequest form is read as the request inside.
    const count = request("gemini", { generateContentRequest: { model: "models/m", ...body } }, {}, "/gemini/v1beta/models/gemini-2.5-pro:countTokens");
    expect([count.hasImage(), count.tools(), count.asksThinking(), count.routeTag()]).toEqual([true, ["run_shell_command", "googleSearch"], true, "pro"]);
    expect(count.withoutRouteTags()).toMatchObject({ generateContentRequest: { system_instruction: { parts: [] } } });
  });

  it("a body that is not a format's JSON satisfies no body condition: every fact is undefined", async () => {
    const passthrough = request("chat", { input: "x" }, {}, "/v1/embeddings");
    const none = request("messages", undefined);
    for (const r of [passthrough, none]) {
      expect([r.hasImage(), r.tools(), r.asksThinking(), r.routeTag(), await r.inputTokens(testSeal)]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    }
    expect(request("chat", undefined, { "user-agent": "curl/8.5.0" }).client()).toBeUndefined();
  });

  it("estimates input tokens as the local count does: never below a quarter of the characters, growing with the request", async () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(40);
    const small = await request("messages", { model: "m", max_tokens: 9, messages: [{ role: "user", content: text }] }).inputTokens(testSeal);
    const large = await request("messages", { model: "m", max_tokens: 9, messages: [{ role: "user", content: text.repeat(3) }] }).inputTokens(testSeal);
    expect(small).toBeGreaterThanOrEqual(Math.ceil(text.length / 4));
    expect(large).toBeGreaterThan(small!);
    const count = request("gemini", { generateContentRequest: { contents: [{ role: "user", parts: [{ text }] }] } }, {}, "/gemini/v1beta/models/m:countTokens");
    expect(await count.inputTokens(testSeal)).toBeGreaterThanOrEqual(Math.ceil(text.length / 4));
  });

  it("says whether the estimate reaches a number from its bounds alone, and counts only when they leave it open", async () => {
    const words = (n: number) => request("chat", { model: "m", messages: [{ role: "user", content: "alpha ".repeat(n) }] });
    // 6,000 characters: a floor of 1,500 tokens. 60 characters: at most a few hundred.
    expect(words(1000).inputTokensAtLeast(1000, testSeal)).toBe(true);
    expect(words(10).inputTokensAtLeast(1000, testSeal)).toBe(false);
    // 2,000 characters: between the floor (500) and the ceiling (2,000 and the fixed amounts), so it counts.
    const open = words(333).inputTokensAtLeast(1000, testSeal);
    expect(open).toBeInstanceOf(Promise);
    expect(await open).toBe(false);
    expect(request("chat", { input: "x" }, {}, "/v1/embeddings").inputTokensAtLeast(1, testSeal)).toBeUndefined();
  });

  it("finds every route tag opening a text of its places, and removes them all without touching the request as read", () => {
    const body = {
      model: "m",
      max_tokens: 9,
      system: [{ type: "text", text: "<gateway-route>a</gateway-route>" }, { type: "text", text: "  <gateway-route> b </gateway-route>\n\nYou review." }],
      messages: [{ role: "user", content: [{ type: "text", text: "<gateway-route>c</gateway-route>hi" }, { type: "image", source: {} }] }],
    };
    const r = request("messages", structuredClone(body));
    expect(r.routeTag()).toBe("a");
    expect(r.withoutRouteTags()).toEqual({ ...body, system: [{ type: "text", text: "You review." }], messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image", source: {} }] }] });
    expect(r.json).toEqual(body);
    expect(request("messages", { model: "m", max_tokens: 9, messages: [{ role: "user", content: "hi" }] }).withoutRouteTags()).toBeUndefined();
  });

  it("answers each question once, on demand", () => {
    const r = request("chat", { model: "m", tools: [{ type: "function", function: { name: "a" } }], messages: [] });
    expect(r.tools()).toBe(r.tools());
  });
});
