import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, request as httpRequest, type Server } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summarize } from "../src/stats/summarize.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { codeModeRequest, codex045Request } from "./helpers/codex-requests.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { LLAMA_SERVER_DIR, LLAMA_SKIP, startLlamaServer, type LlamaServer } from "./helpers/llama-server.js";

/**
 * Issue 49: a real llama.cpp `llama-server` (test/helpers/llama-server.ts) behind the gateway, through the official
 * SDKs. The model writes garbage on purpose: what is asserted is what the server accepted or refused (its status,
 * the reply's shape, its log), never the text. Three servers, started once: `main` with room for a coding tool's
 * tools, `tools` with the model that emits `<tool_call>` (whose forced calls its parser cannot read), `small` at
 * `-c 512` for overflows.
 */

const NOT_A_STRING = "Wrong type supplied for parameter 'tool_choice'";

/** A pass-through HTTP proxy in front of a real server that keeps each request's body: how many reached it, and what. */
async function recordingProxy(target: string): Promise<{ url: string; bodies: Record<string, unknown>[]; server: Server }> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST") bodies.push(JSON.parse(body.toString()) as Record<string, unknown>);
      const out = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (reply) => {
        res.writeHead(reply.statusCode!, reply.headers);
        reply.pipe(res);
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, bodies, server };
}

describe.skipIf(!LLAMA_SERVER_DIR)(`a real llama.cpp server behind the gateway (issue 49)${LLAMA_SERVER_DIR ? "" : `: skipped, ${LLAMA_SKIP}`}`, () => {
  let main: LlamaServer;
  let tools: LlamaServer;
  let small: LlamaServer;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let gateway: TestGateway;
  const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
  const gemini = () => new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
  /** The server's log from here on: what it said about the requests a test sent. */
  const logFrom = (server: LlamaServer) => {
    const start = server.log().length;
    return () => server.log().slice(start);
  };

  beforeAll(async () => {
    [main, tools, small] = await Promise.all([
      startLlamaServer(["-c", "8192", "--override-kv", "llama.context_length=int:262144", "-n", "8"]),
      startLlamaServer(["-m", `${LLAMA_SERVER_DIR}/models/tiny-tools.gguf`, "-n", "24"]),
      startLlamaServer(["-c", "512", "-n", "8"]),
    ]);
    proxy = await recordingProxy(main.url);
    const upstreams = {
      llama: { kind: "llamacpp", url: main.url, models: ["tiny"] },
      recorded: { kind: "llamacpp", url: proxy.url, models: ["tiny-recorded"], fallback: ["llama"] },
      toolcalls: { kind: "llamacpp", url: tools.url, models: ["tiny-tools"] },
      small: { kind: "llamacpp", url: small.url, models: ["tiny-512"] },
    };
    gateway = await startTestGateway(undefined, { file: { upstreams } });
  });

  afterAll(async () => {
    await gateway?.close();
    await new Promise((resolve) => proxy?.server.close(resolve));
    await Promise.all([main, tools, small].map((server) => server?.close()));
  });

  describe("every path, JSON and stream, through the official SDKs", () => {
    it("chat passthrough: a reply and a stream with usage", async () => {
      const reply = await openai().chat.completions.create({ model: "tiny", max_tokens: 4, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }] });
      expect(reply.object).toBe("chat.completion");
      expect(reply.usage!.prompt_tokens).toBeGreaterThan(0);
      const stream = await openai().chat.completions.create({ model: "tiny", max_tokens: 4, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0);
      expect(gateway.records.slice(-2).map((r) => [r.status, r.outcome, r.translated])).toEqual([
        [200, "complete", undefined],
        [200, "complete", undefined],
      ]);
    });

    it("messages -> chat: Claude Code's first request (its system, tools and thinking) as JSON and as a stream", async () => {
      const recorded = JSON.parse(readFileSync(new URL("./fixtures/claude-code-2.1.197-messages.json", import.meta.url), "utf8")) as { body: Anthropic.MessageCreateParamsNonStreaming };
      const body = { ...recorded.body, model: "tiny", max_tokens: 8, stream: false, context_management: undefined } as Anthropic.MessageCreateParamsNonStreaming;
      const reply = await anthropic().messages.create(body);
      expect(reply.type).toBe("message");
      expect(reply.usage.input_tokens).toBeGreaterThan(500);
      const events: string[] = [];
      for await (const event of anthropic().messages.stream({ ...body, stream: undefined } as Anthropic.MessageStreamParams)) events.push(event.type);
      expect(events[0]).toBe("message_start");
      expect(events.at(-1)).toBe("message_stop");
    });

    it("Responses -> chat: Codex's requests (code mode's freeform exec tool, 0.45's apply_patch grammar) as a stream and as JSON", async () => {
      for (const request of [codeModeRequest(), codex045Request()]) {
        const stream = (await openai().responses.create({ ...(request as object), model: "tiny", max_output_tokens: 8, stream: true } as OpenAI.Responses.ResponseCreateParamsStreaming)) as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>;
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        expect(types[0]).toBe("response.created");
        expect(types.at(-1)).toBe("response.completed");
      }
      const reply = await openai().responses.create({ ...(codex045Request() as object), model: "tiny", max_output_tokens: 8, stream: false } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      expect(reply.object).toBe("response");
      expect(reply.usage!.input_tokens).toBeGreaterThan(100);
    });

    it("Gemini -> chat: Gemini CLI's run_shell_command and read_many_files as JSON and as a stream", async () => {
      const functionDeclarations = [
        { name: "run_shell_command", description: "Runs a shell command.", parametersJsonSchema: { type: "object", properties: { command: { type: "string" }, description: { type: "string" }, directory: { type: "string" } }, required: ["command"] } },
        { name: "read_many_files", description: "Reads files.", parametersJsonSchema: { type: "object", properties: { paths: { type: "array", items: { type: "string" }, minItems: 1 } }, required: ["paths"] } },
      ];
      const params = { model: "tiny", contents: "list the files", config: { systemInstruction: "You are Gemini CLI.", maxOutputTokens: 8, tools: [{ functionDeclarations }] } };
      const reply = await gemini().models.generateContent(params);
      expect(reply.candidates![0]!.finishReason).toBeDefined();
      expect(reply.usageMetadata!.promptTokenCount).toBeGreaterThan(0);
      let last;
      for await (const chunk of await gemini().models.generateContentStream(params)) last = chunk;
      expect(last!.usageMetadata!.candidatesTokenCount).toBeGreaterThan(0);
    });
  });

  describe("tool_choice in every form reaches llama.cpp in a form it reads (strings only)", () => {
    const weather = { name: "get_weather", description: "Weather.", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };
    const time = { name: "get_time", description: "Time.", input_schema: { type: "object" as const, properties: {} } };

    it("messages auto, any, tool and none; Responses required and a named function; Gemini ANY with one function: never logged as a wrong type", async () => {
      const log = logFrom(main);
      for (const tool_choice of [{ type: "auto" }, { type: "any" }, { type: "tool", name: "get_time" }, { type: "none" }] as Anthropic.ToolChoice[]) {
        const reply = await anthropic().messages.create({ model: "tiny", max_tokens: 8, tools: [weather, time], tool_choice, messages: [{ role: "user", content: "time?" }] });
        expect(reply.type, JSON.stringify(tool_choice)).toBe("message");
      }
      const fn = (name: string) => ({ type: "function" as const, name, strict: false, parameters: { type: "object", properties: {} } });
      for (const tool_choice of ["required", { type: "function", name: "get_time" }] as OpenAI.Responses.ResponseCreateParams["tool_choice"][]) {
        const reply = await openai().responses.create({ model: "tiny", max_output_tokens: 8, input: "time?", tools: [fn("get_weather"), fn("get_time")], tool_choice });
        expect(reply.object).toBe("response");
      }
      const reply = await gemini().models.generateContent({
        model: "tiny",
        contents: "time?",
        config: { maxOutputTokens: 8, tools: [{ functionDeclarations: [{ name: "get_weather" }, { name: "get_time" }] }], toolConfig: { functionCallingConfig: { mode: "ANY" as never, allowedFunctionNames: ["get_time"] } } },
      });
      expect(reply.candidates).toHaveLength(1);
      expect(log()).not.toContain(NOT_A_STRING);
    });

    it("a named tool goes as required with only that tool offered (as llama.cpp's own messages endpoint reads it)", async () => {
      proxy.bodies.length = 0;
      await anthropic().messages.create({ model: "tiny-recorded", max_tokens: 8, tools: [weather, time], tool_choice: { type: "tool", name: "get_time" }, messages: [{ role: "user", content: "time?" }] });
      expect(proxy.bodies).toHaveLength(1);
      const sent = proxy.bodies[0]!;
      expect(sent.tool_choice).toBe("required");
      expect((sent.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(["get_time"]);
    });
  });

  it("false sub-schemas (items after prefixItems, a property that is false) are accepted as {not: {}}", async () => {
    const input_schema = { type: "object" as const, properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false }, never: false, any: true } };
    const reply = await anthropic().messages.create({ model: "tiny", max_tokens: 8, tools: [{ name: "pairs", input_schema }], messages: [{ role: "user", content: "hi" }] });
    expect(reply.type).toBe("message");
    const response = await openai().responses.create({ model: "tiny", max_output_tokens: 8, input: "hi", tools: [{ type: "function", name: "pairs", strict: false, parameters: input_schema }] });
    expect(response.status).toMatch(/^(completed|incomplete)$/);
  });

  describe("system text in every position", () => {
    it("a mid-conversation developer item of a Responses request is user text marked as system, as a messages request's system message is", async () => {
      proxy.bodies.length = 0;
      const input: OpenAI.Responses.ResponseInput = [
        { role: "developer", content: "Sandbox on." },
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "developer", content: "<permissions>read-only</permissions>" },
        { role: "user", content: "go on" },
      ];
      const reply = await openai().responses.create({ model: "tiny-recorded", instructions: "Be brief.", max_output_tokens: 8, input });
      expect(reply.status).toMatch(/^(completed|incomplete)$/);
      const messages = proxy.bodies[0]!.messages as { role: string; content: unknown }[];
      expect(messages.filter((message) => message.role === "system")).toEqual([{ role: "system", content: "Be brief.\n\nSandbox on." }]);
      expect(JSON.stringify(messages.at(-1))).toContain("<system-reminder>\\n<permissions>read-only</permissions>\\n</system-reminder>");
      const messagesReply = await anthropic().messages.create({
        model: "tiny",
        max_tokens: 8,
        system: "Be brief.",
        messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "system", content: "Plan mode." } as never, { role: "user", content: "go on" }],
      });
      expect(messagesReply.type).toBe("message");
    });

    it("a chat client's late system message is the template's refusal: one request, no fallback, 400 in chat's shape with the server's words", async () => {
      proxy.bodies.length = 0;
      const refused = await openai()
        .chat.completions.create({ model: "tiny-recorded", max_tokens: 4, messages: [{ role: "user", content: "hi" }, { role: "system", content: "late" }] })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      const error = (refused as InstanceType<typeof OpenAI.BadRequestError>).error as { type: string; message: string };
      expect(error.type).toBe("invalid_request_error");
      expect(error.message).toContain("System message must be at the beginning.");
      expect(proxy.bodies).toHaveLength(1);
      const record = gateway.records.at(-1)!;
      expect([record.status, record.upstream, record.tried]).toEqual([400, "recorded", undefined]);
    });
  });

  it("an image with no projector loaded: one request, 400 to messages and Gemini clients in their shapes with the server's words", async () => {
    proxy.bodies.length = 0;
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const refused = await anthropic()
      .messages.create({ model: "tiny-recorded", max_tokens: 8, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }, { type: "text", text: "what?" }] }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (refused as InstanceType<typeof Anthropic.BadRequestError>).error as { type: string; error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("image input is not supported");
    expect(proxy.bodies).toHaveLength(1);
    const gem = await gemini()
      .models.generateContent({ model: "tiny", contents: [{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: png } }, { text: "what?" }] }] })
      .catch((error: unknown) => error as Error);
    expect(String(gem)).toContain("INVALID_ARGUMENT");
    expect(String(gem)).toContain("image input is not supported");
  });

  it("a forced tool call the server cannot parse: 400 for JSON; inside a 200 stream the error event, recorded as the upstream's error and counted by stats (passthrough and translated)", async () => {
    const tool = { type: "function" as const, function: { name: "a", parameters: { type: "object", properties: { x: { type: "string" } } } } };
    const refused = await openai()
      .chat.completions.create({ model: "tiny-tools", max_tokens: 20, tools: [tool], tool_choice: "required", messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toContain("does not match the expected");
    const before = gateway.records.length;
    const stream = await openai().chat.completions.create({ model: "tiny-tools", max_tokens: 20, stream: true, tools: [tool], tool_choice: "required", messages: [{ role: "user", content: "hi" }] });
    const failed = await (async () => {
      for await (const _chunk of stream);
    })().catch((error: unknown) => error);
    expect(String(failed)).toContain("does not match the expected");
    const translated = anthropic().messages.stream({ model: "tiny-tools", max_tokens: 20, tools: [{ name: "a", input_schema: { type: "object", properties: { x: { type: "string" } } } }], tool_choice: { type: "any" }, messages: [{ role: "user", content: "hi" }] });
    const ended = await translated.finalMessage().catch((error: unknown) => error);
    expect(String(ended)).toContain("does not match the expected");
    await expect.poll(() => gateway.records.length).toBe(before + 2);
    const records = gateway.records.slice(before);
    expect(records.map((r) => [r.status, r.outcome, r.translated])).toEqual([
      [200, "upstream_error", undefined],
      [200, "upstream_error", "messages -> chat"],
    ]);
    expect(summarize(records).total.errors).toBe(2);
  });

  it("-c 512: a prompt beyond the window is the server's overflow, in each client's words", async () => {
    const long = "word ".repeat(900);
    const chat = await openai().chat.completions.create({ model: "tiny-512", max_tokens: 4, messages: [{ role: "user", content: long }] }).catch((error: unknown) => error);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect(((chat as InstanceType<typeof OpenAI.BadRequestError>).error as { type: string }).type).toBe("exceed_context_size_error");
    const messages = await anthropic().messages.create({ model: "tiny-512", max_tokens: 4, messages: [{ role: "user", content: long }] }).catch((error: unknown) => error);
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect((messages as Error).message).toMatch(/prompt is too long: \d+ tokens > \d+ maximum/);
    const responses = await openai().responses.create({ model: "tiny-512", max_output_tokens: 4, input: long }).catch((error: unknown) => error);
    expect(responses).toBeInstanceOf(OpenAI.BadRequestError);
    expect(((responses as InstanceType<typeof OpenAI.BadRequestError>).error as { code: string }).code).toBe("context_length_exceeded");
  });

  // Greedy (temperature 0) and two tokens: the template opens <think>, and the limit cuts the thinking, every time.
  it("reasoning: a reply that is only reasoning (the output limit cut the thinking) keeps it as reasoning and gives it as the answer's text too, in every format", async () => {
    // The messages API still takes temperature; this SDK's types no longer list it.
    const greedy = { temperature: 0 } as object;
    const reply = await anthropic().messages.create({ model: "tiny", max_tokens: 2, ...greedy, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [{ role: "user", content: "think" }] });
    expect(reply.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    const [thinking, text] = reply.content as [Anthropic.ThinkingBlock, Anthropic.TextBlock];
    expect(text.text).toBe(thinking.thinking);
    const response = await openai().responses.create({ model: "tiny", max_output_tokens: 2, temperature: 0, reasoning: { effort: "low" }, input: "think" });
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(response.output_text).not.toBe("");
    const gem = await gemini().models.generateContent({ model: "tiny", contents: "think", config: { maxOutputTokens: 2, temperature: 0, thinkingConfig: { includeThoughts: true } } });
    expect(gem.text).not.toBe("");
  });

  it("model lists: Anthropic- and Gemini-shaped lists give the server's created time and the model's id as its display name", async () => {
    const listed = (await (await fetch(`${main.url}/v1/models`)).json()) as { data: { id: string; created: number }[] };
    const created = listed.data[0]!.created;
    const messagesList = await anthropic().models.list();
    const tiny = messagesList.data.find((model) => model.id === "tiny")!;
    expect(tiny.display_name).toBe("tiny");
    expect(Date.parse(tiny.created_at) / 1000).toBe(created);
    const geminiList = await gemini().models.list();
    const names = [];
    for await (const model of geminiList) names.push([model.name, model.displayName]);
    expect(names).toContainEqual(["models/tiny", "tiny"]);
  });

  it("gateway add <url> recognises it, and says which models it lists and the window it runs with (meta.n_ctx, not n_ctx_train)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-llama-add-"));
    const added = await runCli(["add", small.url], cliEnv({ GATEWAY_CONFIG_DIR: dir }));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`Found llama.cpp at ${small.url}`);
    expect(added.stderr).toContain("It lists 1 model: tiny (context window 512 tokens).");
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).upstreams.llamacpp).toMatchObject({ kind: "llamacpp", url: small.url });
  });
});
