import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { decodeEvents } from "../src/sse/sse.js";
import { scripted, type ChatScript } from "./helpers/chat-script.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startStrictFake, STRICT_KINDS } from "./helpers/strict/index.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, rawRequest } from "./helpers/http.js";
import { chatSse, chunk, type Script, type FakeUpstream } from "./helpers/fake-upstream.js";

/** Responses -> chat (Codex) and Gemini -> chat (Gemini CLI) through a real gateway, with the official SDKs. */

const opened = closeAfterEach();
let upstream: FakeUpstream;
let gateway: TestGateway;

async function chatOnly(script: Script, file: Record<string, unknown> = {}) {
  upstream = opened(await startStrictFake(STRICT_KINDS.generic, { script }));
  gateway = opened(await startTestGateway(undefined, { file: { upstream: "local", upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", retries: 0 } }, ...file } }));
  return gateway;
}

const SHELL_TURN: ChatScript = {
  reasoning: "Listing first.",
  text: "Running it.",
  toolCalls: [
    { id: "call_1", name: "exec_command", args: { cmd: "ls" } },
    { id: "call_2", name: "exec_command", args: { cmd: "pwd" } },
  ],
};

describe("Responses clients on a chat-only upstream", () => {
  const openai = () => new OpenAI({ baseURL: `${gateway!.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
  const tools = [{ type: "function" as const, name: "exec_command", description: "Run a command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] }, strict: false }];

  it("a whole reply: reasoning, message and function_call items, usage, the model asked for", async () => {
    await chatOnly(scripted(SHELL_TURN));
    const response = await openai().responses.create({ model: "gpt-6.1-sol", instructions: "Be terse.", input: "list files", tools });
    expect(response.id).toMatch(/^resp_/);
    expect(response.model).toBe("gpt-6.1-sol");
    expect(response.status).toBe("completed");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    expect(response.output[2]).toMatchObject({ type: "function_call", call_id: "call_1", name: "exec_command", arguments: '{"cmd":"ls"}', status: "completed" });
    expect(response.output_text).toBe("Running it.");
    expect(response.usage).toMatchObject({ input_tokens: 20, output_tokens: 7, total_tokens: 27 });
    const sent = upstream!.last().body!;
    expect(sent.messages).toEqual([{ role: "system", content: "Be terse." }, { role: "user", content: "list files" }]);
    expect(sent.tools).toEqual([{ type: "function", function: { name: "exec_command", description: "Run a command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] } } }]);
  });

  it("the stream's finalResponse() holds the same items, and every item is closed by output_item.done before response.completed", async () => {
    await chatOnly(scripted(SHELL_TURN));
    const whole = await openai().responses.create({ model: "m", input: "list files", tools });
    const stream = openai().responses.stream({ model: "m", input: "list files", tools });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    // Ids are made per reply; `parsed` and `parsed_arguments` are the SDK's own additions, not on the wire.
    const strip = (items: typeof whole.output) => JSON.parse(JSON.stringify(items, (key, value) => (key === "id" || key === "parsed" || key === "parsed_arguments" ? undefined : value)));
    expect(strip(final.output)).toEqual(strip(whole.output));
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types.filter((t) => t === "response.output_item.added")).toHaveLength(4);
    expect(types.filter((t) => t === "response.output_item.done")).toHaveLength(4);
  });

  it("previous_response_id is 400: a translated route keeps no state", async () => {
    await chatOnly(scripted({ text: "x" }));
    const error = (await openai().responses.create({ model: "m", input: "hi", previous_response_id: "resp_1" }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    expect(upstream!.received).toHaveLength(0);
  });

  it("a reply cut by the length limit ends with response.completed, status incomplete", async () => {
    await chatOnly(scripted({ text: "truncat", finish: "length" }));
    const res = await rawRequest(gateway!.url, { method: "POST", path: "/v1/responses", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", input: "hi", stream: true }) });
    const last = decodeEvents(res.body).at(-1)!;
    expect(last.event).toBe("response.completed");
    expect(JSON.parse(last.data).response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
  });

  it("an upstream that dies mid-stream ends it with response.failed", async () => {
    await chatOnly(() => ({ chunks: [chatSse([chunk({ role: "assistant", content: "" }), chunk({ content: "part" })], false)], die: true }));
    const res = await rawRequest(gateway!.url, { method: "POST", path: "/v1/responses", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", input: "hi", stream: true }) });
    const last = decodeEvents(res.body).at(-1)!;
    expect(last.event).toBe("response.failed");
    expect(JSON.parse(last.data).response).toMatchObject({ status: "failed", error: { code: "server_error" } });
  });
});

describe("Gemini clients on a chat-only upstream", () => {
  const genai = () => new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway!.url}/gemini` } });
  const declarations = [{ name: "run_shell_command", description: "Run a shell command", parametersJsonSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } }];
  const GEMINI_TURN: ChatScript = { text: "Checking.", toolCalls: [{ id: "call_x", name: "run_shell_command", args: { command: "ls" } }, { id: "call_y", name: "run_shell_command", args: { command: "pwd" } }] };

  it("generateContent: text and function calls with distinct ids, STOP, usage; the router's JSON mode arrives as response_format", async () => {
    await chatOnly(scripted(GEMINI_TURN));
    const reply = await genai().models.generateContent({ model: "gemini-2.5-pro", contents: "list", config: { tools: [{ functionDeclarations: declarations }], systemInstruction: "Be brief." } });
    expect(reply.text).toBe("Checking.");
    expect(reply.functionCalls?.map((call) => [call.id, call.name, call.args])).toEqual([
      ["call_x", "run_shell_command", { command: "ls" }],
      ["call_y", "run_shell_command", { command: "pwd" }],
    ]);
    expect(reply.candidates?.[0]?.finishReason).toBe("STOP");
    expect(reply.usageMetadata).toMatchObject({ promptTokenCount: 20, candidatesTokenCount: 7 });
    expect(upstream!.last().path).toBe("/v1/chat/completions");
    expect(upstream!.last().body!.model).toBe("gemini-2.5-pro");

    upstream!.script(scripted({ text: '```json\n{"complexity_reasoning":"simple","complexity_score":1}\n```' }));
    const router = await genai().models.generateContent({
      model: "gemini-2.5-flash",
      contents: "classify",
      config: { responseMimeType: "application/json", responseJsonSchema: { type: "OBJECT", properties: { complexity_score: { type: "INTEGER" } } }, thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" as never } },
    });
    expect(JSON.parse(router.text!)).toEqual({ complexity_reasoning: "simple", complexity_score: 1 });
    expect(upstream!.last().body!.response_format).toMatchObject({ type: "json_schema", json_schema: { schema: { type: "object", properties: { complexity_score: { type: "integer" } } } } });
  });

  it("generateContentStream: text as it comes, each function call once complete, the last chunk with finishReason and usage", async () => {
    await chatOnly(scripted(GEMINI_TURN));
    const chunks = [];
    for await (const piece of await genai().models.generateContentStream({ model: "gemini-2.5-pro", contents: "list", config: { tools: [{ functionDeclarations: declarations }] } })) chunks.push(piece);
    expect(chunks.map((c) => c.text ?? "").join("")).toBe("Checking.");
    expect(chunks.flatMap((c) => c.functionCalls ?? []).map((call) => call.id)).toEqual(["call_x", "call_y"]);
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe("STOP");
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 20 });
  });

  it("streamGenerateContent without alt=sse streams Google's JSON array, element by element, and captures it whole", async () => {
    await chatOnly(scripted(GEMINI_TURN), { capture: "all" });
    const res = await rawRequest(gateway!.url, { method: "POST", path: "/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent", headers: { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" }, body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "list" }] }] }) });
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const chunks = JSON.parse(res.body) as { candidates?: { content?: { parts?: { text?: string; functionCall?: { id: string } }[] }; finishReason?: string }[] }[];
    expect(chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).map((p) => p.text ?? p.functionCall?.id).join("|")).toBe("Che|cki|ng.|call_x|call_y");
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe("STOP");
    await expect.poll(() => gateway.records.length).toBe(1);
    const detail = await rawRequest(gateway.url, { path: `/ui/api/requests/${gateway.records[0]!.requestId}`, headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    const captured = (JSON.parse(detail.body) as { capture: { chunks: { text: string }[] } }).capture.chunks;
    expect(captured.map((chunk) => chunk.text).join("")).toBe(res.body);
  });

  it(":countTokens is answered locally", async () => {
    await chatOnly(scripted({ text: "x" }));
    const counted = await genai().models.countTokens({ model: "gemini-2.5-pro", contents: "How many tokens is this sentence?" });
    expect(counted.totalTokens).toBeGreaterThan(5);
    expect(upstream!.received).toHaveLength(0);
  });

  it("an upstream error reaches the SDK in Google's shape with the upstream's status and message", async () => {
    await chatOnly(() => ({ status: 429, json: { error: { message: "slow down" } } }));
    const error = (await genai().models.generateContent({ model: "m", contents: "hi" }).catch((e: unknown) => e)) as Error & { status?: number };
    expect(error.status).toBe(429);
    expect(error.message).toContain("slow down");
    expect(error.message).toContain("RESOURCE_EXHAUSTED");
  });
});
