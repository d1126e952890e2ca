import Anthropic from "@anthropic-ai/sdk";
import { gzipSync } from "node:zlib";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startStrictFake, STRICT_KINDS } from "./helpers/strict/index.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { chunkFrames, messagesHeaders, nextOnEach, rawPost, rawRequest } from "./helpers/http.js";
import { chatSse, chunk, FAKE_UPSTREAM_KEY, inWrites, messagesSse, startFakeUpstream, type FakeUpstream, type Script } from "./helpers/fake-upstream.js";
import { scripted, type ChatScript } from "./helpers/chat-script.js";
import { decodeEvents } from "../src/sse/sse.js";

/**
 * Anthropic Messages <-> Chat Completions through a real gateway (SPEC 10 rules 1-7): the official Anthropic SDK in
 * front of a chat-only upstream, and the official OpenAI SDK in front of a messages-only one.
 */

const opened = closeAfterEach();
let upstream: FakeUpstream;
let gateway: TestGateway;

async function chatOnly(script: Script, options: { file?: Record<string, unknown>; earlyStartMs?: number; keepAliveMs?: number } = {}) {
  upstream = opened(await startStrictFake(STRICT_KINDS.generic, { script }));
  gateway = opened(await startTestGateway(undefined, {
    file: { upstream: "local", upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", ...options.file } } },
    earlyStartMs: options.earlyStartMs,
    keepAliveMs: options.keepAliveMs,
  }));
  return new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
}

describe("an upstream that echoes its key in an error", () => {
  it("reaches a translated client without the key, in the body and in every header it rewrote", async () => {
    await chatOnly(
      (req) => ({
        status: 401,
        headers: { "www-authenticate": `Bearer error="invalid_token", key="${String(req.headers.authorization)}"`, "x-echo": String(req.headers.authorization) },
        json: { error: { message: `Incorrect API key provided: ${String(req.headers.authorization)}`, type: "invalid_request_error" } },
      }),
      { file: { key: "keychain" } },
    );
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }) });
    expect(upstream.last().headers.authorization).toBe(`Bearer ${FAKE_UPSTREAM_KEY}`);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ type: "error", error: { type: "authentication_error", message: "Incorrect API key provided: Bearer ***" } });
    expect(res.headers["www-authenticate"]).toBe('Bearer error="invalid_token", key="Bearer ***"');
    expect(res.headers["x-echo"]).toBe("Bearer ***");
    expect(JSON.stringify(res)).not.toContain(FAKE_UPSTREAM_KEY);
  });
});

const TOOLS = [{ name: "Bash", description: "Run a shell command", input_schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" as const, properties: { command: { type: "string" } }, required: ["command"] } }];

describe("Claude Code's requests reach a chat upstream with their meaning, and nothing Anthropic-only", () => {
  it("system blocks, mid-conversation system reminders, tools, tool results, thinking effort, JSON output", async () => {
    const client = await chatOnly(scripted({ text: "ok" }), { file: { reasoning: "effort", maxOutputTokens: 8192 } });
    // Claude Code streams (the SDK refuses a request this large without a stream).
    await client.messages.stream(
      {
        model: "claude-sonnet-4-5",
        max_tokens: 64000,
        system: [
          { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.197; cch=abc123;" },
          { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
        ],
        messages: [
          { role: "user", content: [{ type: "text", text: "list files", cache_control: { type: "ephemeral" } }] },
          { role: "assistant", content: [{ type: "text", text: "Running ls." }, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls", description: "list" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt\nb.txt" }, { type: "text", text: "<system-reminder>be brief</system-reminder>" }] },
        ],
        tools: TOOLS,
        tool_choice: { type: "auto", disable_parallel_tool_use: true },
        thinking: { type: "enabled", budget_tokens: 31999 },
        metadata: { user_id: "user_abc_account_x_session_y" },
        top_k: 5,
        stop_sequences: ["</done>"],
      },
      { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14" } },
    ).finalMessage();
    const sent = upstream!.last();
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers["anthropic-version"]).toBeUndefined();
    expect(sent.headers["anthropic-beta"]).toBeUndefined();
    expect(sent.headers["x-api-key"]).toBeUndefined();
    expect(sent.headers.authorization).toBeUndefined();
    const body = sent.body!;
    expect(JSON.stringify(body)).not.toMatch(/cache_control|\$schema|top_k|metadata|user_abc|x-anthropic-billing-header|cch=/);
    expect(body).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 8192,
      stop: ["</done>"],
      reasoning_effort: "high",
      parallel_tool_calls: false,
      tool_choice: "auto",
      tools: [{ type: "function", function: { name: "Bash", description: "Run a shell command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } }],
    });
    const messages = body.messages as { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
    expect(messages[0]).toEqual({ role: "system", content: "You are Claude Code." });
    expect(messages[1]).toMatchObject({ role: "user" });
    expect(messages[2]).toMatchObject({ role: "assistant", content: "Running ls.", tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls","description":"list"}' } }] });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "toolu_1", content: "a.txt\nb.txt" });
    expect(messages[4]).toMatchObject({ role: "user" });
    expect(JSON.stringify(messages[4]!.content)).toContain("be brief");
    expect(messages).toHaveLength(5);
  });

  it("leaves reasoning_effort out for an upstream that does not say it takes it", async () => {
    const client = await chatOnly(scripted({ text: "ok" }));
    await client.messages.create({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }], thinking: { type: "enabled", budget_tokens: 2000 } });
    expect(upstream!.last().body).not.toHaveProperty("reasoning_effort");
  });
});

const TOOL_TURN: ChatScript = {
  reasoning: "The user wants files listed.",
  text: "Let me check.",
  toolCalls: [
    { id: "call_a", name: "Bash", args: { command: "ls -la", description: "List files" } },
    { id: "call_b", name: "Bash", args: { command: "pwd" } },
  ],
  finish: "stop",
};

describe("replies and streams come back as Anthropic's", () => {
  it("a whole reply: thinking with a signature, text, tool_use blocks, the tool stop reason whatever the upstream said, usage without cached tokens", async () => {
    const client = await chatOnly(scripted(TOOL_TURN));
    const message = await client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1000, messages: [{ role: "user", content: "list" }], tools: TOOLS });
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe("claude-sonnet-4-5");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(message.content[0]).toMatchObject({ type: "thinking", thinking: "The user wants files listed.", signature: expect.stringMatching(/^gw1\./) });
    expect(message.content[2]).toEqual({ type: "tool_use", id: "call_a", name: "Bash", input: { command: "ls -la", description: "List files" } });
    expect(message.usage).toMatchObject({ input_tokens: 16, output_tokens: 7, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 });
  });

  it("the stream's finalMessage() equals the whole reply for the same upstream script", async () => {
    const client = await chatOnly(scripted(TOOL_TURN));
    const request = { model: "claude-sonnet-4-5", max_tokens: 1000, messages: [{ role: "user" as const, content: "list" }], tools: TOOLS };
    const whole = await client.messages.create(request);
    const final = await client.messages.stream(request).finalMessage();
    // The SDK's stream helper adds fields of its own (parsed_output, stop_details) that are not on the wire.
    const { id: _a, ...wholeRest } = whole;
    const { id: _b, parsed_output: _c, stop_details: _d, ...finalRest } = final as typeof final & { parsed_output?: unknown; stop_details?: unknown };
    expect(finalRest).toEqual(wholeRest);
    expect(gateway!.records.at(-1)).toMatchObject({ translated: "messages -> chat", upstream: "local", status: 200, inputTokens: 20, outputTokens: 7, cacheReadTokens: 4 });
  });

  it("each event leaves with the upstream bytes that complete it: message_start before the first upstream chunk", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await chatOnly(() => ({ after: gate, chunks: [chatSse([chunk({ content: "late" }), chunk({}, "stop")])] }));
    const res = await fetch(`${gateway!.url}/v1/messages`, { method: "POST", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }) });
    // Headers alone do not say the stream opened: the first event must arrive while the upstream has sent nothing.
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^event: message_start\n/);
    release();
    let rest = "";
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
    expect(decodeEvents(first + rest).map((e) => e.event)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  });

  it("an upstream that has not answered within the early-start time: message_start and pings keep the stream alive", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await chatOnly(async () => {
      await gate;
      return { chunks: [chatSse([chunk({ content: "done" }), chunk({}, "stop")])] };
    }, { earlyStartMs: 50 });
    const res = await fetch(`${gateway!.url}/v1/messages`, { method: "POST", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }) });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-upstream")).toBe("local");
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^event: message_start\n/);
    release();
    let rest = "";
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
    expect(rest).toContain('"text":"done"');
    expect(rest).toMatch(/event: message_stop\n/);
  });

  it("the events of one upstream read leave in two writes at most, however many HTTP chunks the read held", async () => {
    // undici hands over each chunk of a chunked body on its own, and upstreams send each event as a chunk: written
    // chunk by chunk, twenty events in one read became twenty frames to the client, each framed and queued by Node.
    const texts = ["w0", ...Array.from({ length: 20 }, (_, i) => ` w${i + 1}`)];
    const sse = texts.map((text, i) => chatSse([chunk(i === 0 ? { role: "assistant", content: text } : { content: text })], false));
    const raw = inWrites([sse.slice(0, 1), sse.slice(1), [chatSse([chunk({}, "stop")])]]);
    upstream = opened(await startFakeUpstream({ script: () => raw.reply }));
    gateway = opened(await startTestGateway(undefined, { file: { upstream: "raw", upstreams: { raw: { url: upstream.url, formats: ["chat"], key: "none" } } } }));
    const body = JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] });
    // Each next write goes once the client has the one before, so the middle one arrives while the stream flows.
    const response = await rawPost(gateway.url, "/v1/messages", messagesHeaders(LOCAL_KEY), body, nextOnEach(['"text":"w0"', '"text":" w20"'], raw.next));
    const frames = chunkFrames(response);
    // message_start and ping; the first chunk's block start and delta; of the next read's twenty deltas the first at
    // once and the other nineteen together at the end of the turn; the end.
    expect(frames.map((text) => decodeEvents(text).map((e) => e.event))).toEqual([
      ["message_start", "ping"],
      ["content_block_start", "content_block_delta"],
      ["content_block_delta"],
      Array.from({ length: 19 }, () => "content_block_delta"),
      ["content_block_stop", "message_delta", "message_stop"],
    ]);
    const deltas = decodeEvents(frames.join("")).filter((e) => e.event === "content_block_delta");
    expect(deltas.map((e) => (JSON.parse(e.data) as { delta: { text: string } }).delta.text)).toEqual(texts);
  });

  it("a chat stream the upstream gzipped anyway is decompressed on its way through the translator", async () => {
    const sse = gzipSync(chatSse([chunk({ role: "assistant", content: "packed" }), chunk({ content: " text" }), chunk({}, "stop")]));
    const client = await chatOnly(() => ({ headers: { "content-encoding": "gzip" }, chunks: [sse.subarray(0, 20), sse.subarray(20)] }));
    const message = await client.messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "packed text" }]);
  });

  it("an upstream silent in the middle of its stream: a ping goes out each keep-alive time, the rest follows", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await chatOnly(() => ({ chunks: [chatSse([chunk({ role: "assistant", content: "one" })], false), gate, chatSse([chunk({ content: " two" }), chunk({}, "stop")])] }), { keepAliveMs: 50 });
    const res = await fetch(`${gateway.url}/v1/messages`, { method: "POST", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }) });
    const reader = res.body!.getReader();
    let text = "";
    const events = () => decodeEvents(text).map((e) => e.event);
    // read until two pings came after the first text: the upstream is still held, so only keep-alives can make them
    while (events().filter((name, i, all) => name === "ping" && all.slice(0, i).includes("content_block_delta")).length < 2) {
      const part = await reader.read();
      expect(part.done).toBe(false);
      text += new TextDecoder().decode(part.value);
    }
    release();
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += new TextDecoder().decode(part.value);
    expect(events()).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "ping", "ping", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  });
});

describe("errors in the client's format", () => {
  it.each([
    [400, Anthropic.BadRequestError, "invalid_request_error"],
    [401, Anthropic.AuthenticationError, "authentication_error"],
    [429, Anthropic.RateLimitError, "rate_limit_error"],
    [500, Anthropic.InternalServerError, "api_error"],
    [503, Anthropic.InternalServerError, "overloaded_error"],
  ] as const)("an upstream %i reaches the SDK as %o with the upstream's message", async (status, ErrorClass, type) => {
    const client = await chatOnly(() => ({ status, json: { error: { message: `upstream says ${status}`, type: "whatever", code: "x" } } }), { file: { retries: 0 } });
    const error = await client.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(status);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({ type: "error", error: { type, message: `upstream says ${status}` } });
  });

  it("a context overflow reads as Anthropic words it", async () => {
    const client = await chatOnly(() => ({ status: 400, json: { error: { message: "This model's maximum context length is 8192 tokens.", code: "context_length_exceeded" } } }));
    const error = (await client.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(error.message).toContain("prompt is too long: This model's maximum context length is 8192 tokens.");
  });

  it("an upstream that dies mid-stream ends it with one error event and nothing after", async () => {
    await chatOnly(() => ({ chunks: [chatSse([chunk({ role: "assistant", content: "" }), chunk({ content: "partial" })], false), 'data: {"choices":[{"index":0,"delta":{"content":"cut'], die: true }));
    const res = await rawRequest(gateway!.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }) });
    const events = decodeEvents(res.body);
    expect(events.map((e) => e.event)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "error"]);
    expect(JSON.parse(events.at(-1)!.data)).toEqual({ type: "error", error: { type: "api_error", message: "The upstream connection broke in the middle of the reply. Try again." } });
    expect(gateway!.records.at(-1)).toMatchObject({ outcome: "upstream_error" });
  });
});

describe("count_tokens on a chat-only upstream", () => {
  it("is answered by the gateway with an estimate that grows with the request and never goes below a quarter of its characters", async () => {
    const client = await chatOnly(() => ({ json: {} }));
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(200);
    const small = await client.messages.countTokens({ model: "m", messages: [{ role: "user", content: "hi" }] });
    const large = await client.messages.countTokens({ model: "m", messages: [{ role: "user", content: text }], tools: TOOLS });
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens);
    expect(large.input_tokens).toBeGreaterThanOrEqual(Math.ceil(text.length / 4));
    expect(upstream!.received).toHaveLength(0);
  });
});

describe("chat clients on a messages-only upstream", () => {
  async function messagesOnly(script: Script) {
    upstream = opened(await startFakeUpstream({ script: script }));
    gateway = opened(await startTestGateway(undefined, { file: { upstream: "claude", upstreams: { claude: { url: upstream.url, formats: ["messages"], key: "none", messagesSegment: "" } } } }));
    return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
  }
  const toolReply = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [{ type: "text", text: "Calling." }, { type: "tool_use", id: "toolu_9", name: "read_file", input: { path: "a.txt" } }],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
  };
  const toolEvents = [
    { type: "message_start", message: { ...toolReply, content: [], stop_reason: null, usage: { ...toolReply.usage, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Call" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ing." } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_9", name: "read_file", input: {} } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":' } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"a.txt"}' } },
    { type: "content_block_stop", index: 1 },
    { type: "ping" },
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 4 } },
    { type: "message_stop" },
  ];

  it("Qwen Code's request (tool content as text parts, no max_tokens) becomes Anthropic's, with 4096 by default", async () => {
    const client = await messagesOnly((req) => (req.body?.stream ? { chunks: [messagesSse(toolEvents)] } : { json: toolReply }));
    await client.chat.completions.create({
      model: "claude-x",
      messages: [
        { role: "system", content: "You are Qwen Code." },
        { role: "user", content: "read it" },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }] },
        { role: "tool", tool_call_id: "toolu_1", content: [{ type: "text", text: "hello" }] },
      ],
      tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } } } } }],
      temperature: 0.2,
      top_p: 0.9,
    });
    const sent = upstream!.last();
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.body).toEqual({
      model: "claude-x",
      max_tokens: 4096,
      system: "You are Qwen Code.",
      messages: [
        { role: "user", content: [{ type: "text", text: "read it" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.txt" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hello" }] },
      ],
      temperature: 0.2,
      tools: [{ name: "read_file", input_schema: { type: "object", properties: { path: { type: "string" } } } }],
    });
  });

  it("a tool-calling reply and its stream agree: the openai SDK's finalChatCompletion() equals create()", async () => {
    const client = await messagesOnly((req) => (req.body?.stream ? { chunks: [messagesSse(toolEvents)] } : { json: toolReply }));
    const request = { model: "claude-x", messages: [{ role: "user" as const, content: "read it" }] };
    const whole = await client.chat.completions.create(request);
    expect(whole.choices[0]).toMatchObject({ finish_reason: "tool_calls", message: { role: "assistant", content: "Calling.", tool_calls: [{ id: "toolu_9", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }] } });
    expect(whole.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } });
    const final = await client.chat.completions.stream({ ...request, stream_options: { include_usage: true } }).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("Calling.");
    expect(final.choices[0]!.message.tool_calls).toEqual(whole.choices[0]!.message.tool_calls);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4 });
    // The record counts as the upstream reported: message_start's input and cache read, message_delta's output.
    expect(gateway!.records.at(-1)).toMatchObject({ translated: "chat -> messages", status: 200, inputTokens: 10, outputTokens: 4, cacheReadTokens: 2 });
  });

  it("a stream's usage is OpenAI's: its own chunk with no choices after the finish chunk, only when include_usage asked, the others saying null", async () => {
    await messagesOnly(() => ({ chunks: [messagesSse(toolEvents)] }));
    const stream = async (options: Record<string, unknown>) => {
      const body = JSON.stringify({ model: "claude-x", stream: true, messages: [{ role: "user", content: "read it" }], ...options });
      const res = await rawRequest(gateway!.url, { method: "POST", path: "/v1/chat/completions", headers: { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json" }, body });
      expect(res.status).toBe(200);
      return decodeEvents(res.body).map((event) => event.data);
    };
    const asked = await stream({ stream_options: { include_usage: true } });
    expect(asked.at(-1)).toBe("[DONE]");
    const chunks = asked.slice(0, -1).map((data) => JSON.parse(data) as { id: string; choices: { finish_reason: string | null }[]; usage: unknown });
    const [finish, usage] = chunks.slice(-2);
    expect(finish).toMatchObject({ choices: [{ finish_reason: "tool_calls" }], usage: null });
    expect(usage).toEqual({ id: finish!.id, object: "chat.completion.chunk", created: expect.any(Number), model: "claude-x", choices: [], usage: expect.objectContaining({ prompt_tokens: 12, completion_tokens: 4 }) });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.choices.length === 1)).toBe(true);
    const unasked = await stream({});
    expect(unasked.at(-1)).toBe("[DONE]");
    expect(unasked.slice(0, -1).map((data) => JSON.parse(data) as Record<string, unknown>).filter((chunk) => "usage" in chunk)).toEqual([]);
    expect(unasked).toHaveLength(asked.length - 1);
  });

  it("a stream's record keeps the cache write the messages upstream reported", async () => {
    const usage = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 30 };
    const events = [{ type: "message_start", message: { ...toolReply, content: [], stop_reason: null, usage } }, ...toolEvents.slice(1)];
    const client = await messagesOnly(() => ({ chunks: [messagesSse(events)] }));
    const final = await client.chat.completions.stream({ model: "claude-x", messages: [{ role: "user", content: "read it" }], stream_options: { include_usage: true } }).finalChatCompletion();
    expect(final.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 4 });
    expect(gateway!.records.at(-1)).toMatchObject({ translated: "chat -> messages", inputTokens: 10, outputTokens: 4, cacheReadTokens: 2, cacheWriteTokens: 30 });
  });
});
