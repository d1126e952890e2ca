import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { scripted } from "./helpers/chat-script.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";
import { startStrictFake, STRICT_KINDS, type StrictKind } from "./helpers/strict/index.js";
import type { Script } from "./helpers/fake-upstream.js";

/**
 * Translated routes against the strict fake of each kind (issue 49 item 2): what the gateway makes of a client's
 * request is something that kind's real server accepts. Each test names the kind and the rule it would break.
 */

const opened = closeAfterEach();

/** A gateway whose one upstream is `kind`'s strict fake, serving chat only; `script` plays the model. */
async function behind(kindName: string, strict: StrictKind, script: Script) {
  const upstream = opened(await startStrictFake(strict, { script }));
  const gateway = opened(await startTestGateway(undefined, { file: { upstream: "u", upstreams: { u: { kind: kindName, url: upstream.url, formats: ["chat"], key: "none" } } } }));
  const accepted = () => upstream.received.filter((request) => request.method === "POST").map((request) => request.body);
  return { upstream, gateway, accepted };
}

const BASH: Anthropic.Tool = { name: "Bash", description: "Run a shell command", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };

describe("DeepSeek: a thinking tool loop sends its reasoning_content back (api-docs.deepseek.com/guides/thinking_mode)", () => {
  it("a messages client's second turn carries the first turn's reasoning to the V4 model, which thinks unless told not to", async () => {
    const { gateway, upstream } = await behind("deepseek", STRICT_KINDS.deepseek, (request) =>
      scripted(request.body?.messages && (request.body.messages as unknown[]).length > 1 ? { text: "Done." } : { reasoning: "List them with ls.", toolCalls: [{ id: "call_1", name: "Bash", args: { command: "ls" } }] })(request),
    );
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const question: Anthropic.MessageParam = { role: "user", content: "List the files." };
    const first = await client.messages.create({ model: "deepseek-v4-flash", max_tokens: 1000, tools: [BASH], messages: [question] });
    const call = first.content.find((block) => block.type === "tool_use")!;
    const second = await client.messages.create({
      model: "deepseek-v4-flash",
      max_tokens: 1000,
      tools: [BASH],
      messages: [question, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "a.txt" }] }],
    });
    expect(second.content).toMatchObject([{ type: "text", text: "Done." }]);
    expect((upstream.last().body!.messages as { role: string; reasoning_content?: string }[]).find((message) => message.role === "assistant")?.reasoning_content).toBe("List them with ls.");
  });
});

describe("DeepSeek: a client that asks for no reasoning gets none (its V4 models think unless told not to)", () => {
  it("a Responses client's tool loop without reasoning is accepted: thinking goes switched off", async () => {
    const { gateway, accepted } = await behind("deepseek", STRICT_KINDS.deepseek, (request) =>
      scripted((request.body?.messages as unknown[]).length > 1 ? { text: "Done." } : { toolCalls: [{ id: "call_1", name: "Bash", args: { command: "ls" } }] })(request),
    );
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [{ type: "function", name: "Bash", description: "Run a shell command", parameters: BASH.input_schema as Record<string, unknown>, strict: false }];
    const first = await client.responses.create({ model: "deepseek-v4-flash", input: "List the files.", tools });
    const call = first.output.find((item) => item.type === "function_call")!;
    const second = await client.responses.create({
      model: "deepseek-v4-flash",
      tools,
      input: [{ role: "user", content: "List the files." }, call, { type: "function_call_output", call_id: call.call_id, output: "a.txt" }],
    });
    expect(second.output_text).toBe("Done.");
    expect(accepted().map((body) => body?.thinking)).toEqual([{ type: "disabled" }, { type: "disabled" }]);
  });
});

describe("vLLM: one system message, first (Qwen templates raise otherwise)", () => {
  it("Claude Code's system entries inside messages and a Codex developer item mid-conversation both reach it as one leading system message", async () => {
    const { gateway, accepted } = await behind("vllm", STRICT_KINDS.vllm, scripted({ text: "ok" }));
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    await anthropic.messages.create({
      model: "qwen",
      max_tokens: 100,
      system: "You are Claude Code.",
      messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "system", content: "Skills changed." } as unknown as Anthropic.MessageParam, { role: "user", content: "go on" }],
    });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.responses.create({
      model: "qwen",
      instructions: "You are Codex.",
      input: [{ role: "user", content: "Fix the build." }, { role: "assistant", content: "On it." }, { role: "developer", content: "Approval mode changed to full-auto." }, { role: "user", content: "go on" }],
    });
    for (const body of accepted()) expect((body!.messages as { role: string }[]).filter((message, i) => i > 0 && message.role === "system")).toEqual([]);
  });
});

describe("OpenAI: what every client sends on a translated route is what api.openai.com accepts", () => {
  it("a Gemini client's tool loop and a Responses client's reasoning model request", async () => {
    const { gateway, accepted } = await behind("openai", STRICT_KINDS.openai, (request) =>
      scripted((request.body?.messages as unknown[]).length > 1 ? { text: "ok" } : { toolCalls: [{ id: "call_1", name: "run_shell_command", args: { command: "ls" } }] })(request),
    );
    const gemini = await fetch(`${gateway.url}/v1beta/models/gpt-5.4:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        contents: [
          { role: "user", parts: [{ text: "List the files." }] },
          { role: "model", parts: [{ functionCall: { name: "run_shell_command", args: { command: "ls" } } }] },
          { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "a.txt" } } }] },
        ],
        tools: [{ functionDeclarations: [{ name: "run_shell_command", description: "Run", parametersJsonSchema: { type: "object", properties: { command: { type: "string" } } } }] }],
        generationConfig: { maxOutputTokens: 1000, thinkingConfig: { thinkingBudget: 1024 } },
      }),
    });
    expect(gemini.status, await gemini.clone().text()).toBe(200);
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.responses.create({ model: "gpt-5.4", input: "hi", max_output_tokens: 1000, reasoning: { effort: "high" }, store: false, prompt_cache_key: "s" });
    expect(accepted()).toHaveLength(2);
  });
});

describe("Claude Code 2.1.197's recorded request, translated for each kind, is what that kind's server accepts", () => {
  const golden = JSON.parse(readFileSync(new URL("./fixtures/claude-code-2.1.197-messages.json", import.meta.url), "utf8")) as { headers: Record<string, string>; body: Record<string, unknown> };
  const send = (url: string, model: string) =>
    rawRequest(url, { method: "POST", path: "/v1/messages?beta=true", headers: { ...golden.headers, ...messagesHeaders(LOCAL_KEY) }, body: JSON.stringify({ ...golden.body, model, stream: false }) });

  it.each(["openai", "deepseek", "openrouter", "ollama", "lmstudio"] as const)("%s", async (kind) => {
    const { gateway, accepted } = await behind(kind, STRICT_KINDS[kind], scripted({ text: "ok" }));
    const res = await send(gateway.url, "claude-sonnet-4-5");
    expect(res.status, res.body).toBe(200);
    expect(accepted()).toHaveLength(1);
  });

  it("vLLM: the first request asks for more output than the window leaves and is refused as the client's own 400; the next is capped to the listed max_model_len", async () => {
    const { gateway, accepted } = await behind("vllm", STRICT_KINDS.vllm, scripted({ text: "ok" }));
    const model = "Qwen/Qwen3-Coder-30B-A3B-Instruct";
    const first = await send(gateway.url, model);
    // Its words are SPEC 11's for prompt plus output (the tools work's): only the family's shape is checked here.
    expect(first.status).toBe(400);
    expect(JSON.parse(first.body)).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    await expect.poll(async () => (await send(gateway.url, model)).status).toBe(200);
    expect(accepted().at(-1)!.max_tokens).toBeLessThanOrEqual(32768 - 1000);
  });
});
