import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { decodeEvents } from "../src/sse/sse.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { startStrictFake, STRICT_KINDS } from "./helpers/strict/index.js";
import { FAKE_UPSTREAM_KEY } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { chatSse, chunk, completion, messagesSse, startFakeUpstream, type Script, type ScriptedReply, type FakeUpstream } from "./helpers/fake-upstream.js";

/**
 * Issue 37, items 1-10 and 14: a chat-only upstream sending the odd shapes real servers send, in front of the official
 * SDKs of the other three client formats (and a chat client on a messages-only upstream where the item is about it).
 * Each case names its item; each failed before its fix.
 */

const opened = closeAfterEach();
let upstream: FakeUpstream;
let gateway: TestGateway;

async function chatOnly(script: Script, entry: Record<string, unknown> = {}) {
  upstream = opened(await startStrictFake(STRICT_KINDS.generic, { script }));
  gateway = opened(await startTestGateway(undefined, { file: { upstream: "local", upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", retries: 0, ...entry } } } }));
}

const anthropic = () => new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
const genai = () => new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });

const TOOLS = [{ name: "Bash", description: "Run a command", input_schema: { type: "object" as const, properties: { command: { type: "string" } } } }];
const FUNCTIONS = [{ type: "function" as const, name: "Bash", description: "Run a command", parameters: { type: "object", properties: { command: { type: "string" } } }, strict: false }];
const DECLARATIONS = [{ name: "Bash", description: "Run a command", parametersJsonSchema: { type: "object", properties: { command: { type: "string" } } } }];

const ask = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "go" }] };

/** What each client format's SDK makes of one upstream script: its text and its tool calls' arguments, streamed or whole. */
const clients = {
  async messages(stream: boolean) {
    const request = { ...ask, tools: TOOLS };
    const message = stream ? await anthropic().messages.stream(request).finalMessage() : await anthropic().messages.create(request);
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return { text, calls: message.content.flatMap((block) => (block.type === "tool_use" ? [{ id: block.id, input: block.input }] : [])), stop: message.stop_reason };
  },
  async responses(stream: boolean) {
    const request = { model: "m", input: "go", tools: FUNCTIONS };
    const response = stream ? await openai().responses.stream(request).finalResponse() : await openai().responses.create(request);
    const calls = response.output.flatMap((item) => (item.type === "function_call" ? [{ id: item.call_id, input: item.status === "incomplete" ? item.arguments : (JSON.parse(item.arguments) as unknown), status: item.status }] : []));
    return { text: response.output_text, calls, stop: response.status };
  },
  async gemini(stream: boolean) {
    const request = { model: "m", contents: "go", config: { tools: [{ functionDeclarations: DECLARATIONS }] } };
    const replies = [];
    if (stream) for await (const reply of await genai().models.generateContentStream(request)) replies.push(reply);
    else replies.push(await genai().models.generateContent(request));
    const text = replies.map((reply) => reply.candidates?.[0]?.content?.parts?.map((part) => (part.thought ? "" : (part.text ?? ""))).join("") ?? "").join("");
    const calls = replies.flatMap((reply) => reply.functionCalls ?? []).map((call) => ({ id: call.id, input: call.args }));
    return { text, calls, stop: replies.at(-1)?.candidates?.[0]?.finishReason };
  },
};
type ClientFormat = keyof typeof clients;
const FORMATS = Object.keys(clients) as ClientFormat[];
const BOTH = [false, true].map((stream) => ({ stream, how: stream ? "stream" : "JSON" }));

/** A stream of chat chunks as SSE, or the same answer as one completion, as the request asks. */
const either = (chunks: unknown[], message: Record<string, unknown>, finish: string): Script => (request) =>
  request.body?.stream === true ? { chunks: [chatSse(chunks)] } : { json: completion(message, finish) };

const toolChunk = (call: Record<string, unknown>, finish: string | null = null) => chunk({ tool_calls: [{ index: 0, type: "function", ...call }] }, finish);

describe("item 1: a byte-order mark before the first byte", () => {
  const events = chatSse([chunk({ role: "assistant", content: "Hello" }), chunk({ content: " world" }), chunk({}, "stop")]);

  it.each(FORMATS)("a %s client keeps the stream's first event", async (format) => {
    await chatOnly(() => ({ chunks: [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(events)])] }));
    expect((await clients[format](true)).text).toBe("Hello world");
  });

  it.each(FORMATS)("a %s client reads a JSON reply that begins with one", async (format) => {
    await chatOnly(() => ({ headers: { "content-type": "application/json" }, chunks: [`\uFEFF${JSON.stringify(completion({ content: "Hello world" }))}`] }));
    expect((await clients[format](false)).text).toBe("Hello world");
  });
});

describe("items 2 and 3: tool arguments that are not a JSON object", () => {
  const invalid = (args: string): Script => either([chunk({ role: "assistant", content: "" }), toolChunk({ id: "call_1", function: { name: "Bash", arguments: args } }), chunk({}, "tool_calls")], { content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "Bash", arguments: args } }] }, "tool_calls");

  for (const { stream, how } of BOTH) {
    it.each(FORMATS)(`text that is not JSON reaches a %s client (${how}) as the raw text under INVALID_JSON, never invented keys (item 2)`, async (format) => {
      await chatOnly(invalid("{not json"));
      expect((await clients[format](stream)).calls.map((call) => call.input)).toEqual([{ INVALID_JSON: "{not json" }]);
    });

    it.each(FORMATS)(`JSON that is not an object reaches a %s client (${how}) as the raw text under INVALID_JSON (item 3)`, async (format) => {
      for (const args of ["[1,2]", '"x"', "3"]) {
        await chatOnly(invalid(args));
        expect((await clients[format](stream)).calls.map((call) => call.input), args).toEqual([{ INVALID_JSON: args }]);
      }
    });

    it.each(FORMATS)(`an object cut only of its closing brace, or with a trailing comma, is repaired for a %s client (${how}) (item 2)`, async (format) => {
      for (const args of ['{"command": "ls -la"', '{"command": "ls -la",}', '```json\n{"command": "ls -la"}\n```']) {
        await chatOnly(invalid(args));
        expect((await clients[format](stream)).calls.map((call) => call.input), args).toEqual([{ command: "ls -la" }]);
      }
    });
  }

  it("a messages stream whose arguments turn invalid after a valid start ends its block so that its pieces parse, with the raw text beside them (item 2)", async () => {
    const args = '{"command": "ls", "force": True}';
    await chatOnly(() => ({ chunks: [chatSse([toolChunk({ id: "call_1", function: { name: "Bash", arguments: "" } }), ...args.match(/.{1,4}/g)!.map((piece) => toolChunk({ function: { arguments: piece } })), chunk({}, "tool_calls")])] }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ ...ask, stream: true, tools: TOOLS }) });
    const pieces = decodeEvents(res.body).flatMap((event) => (event.event === "content_block_delta" ? [JSON.parse(event.data).delta.partial_json as string] : []));
    expect(JSON.parse(pieces.join(""))).toEqual({ command: "ls", INVALID_JSON: args });
  });
});

describe("item 4: content as a list of text parts (Mistral)", () => {
  const parts = [{ type: "text", text: "Hello " }, { type: "text", text: "world" }];
  it.each(FORMATS)("a %s client gets the text of a whole reply", async (format) => {
    await chatOnly(() => ({ json: completion({ content: parts }) }));
    expect((await clients[format](false)).text).toBe("Hello world");
  });

  it.each(FORMATS)("a %s client gets the text of stream deltas in that shape", async (format) => {
    await chatOnly(() => ({ chunks: [chatSse([chunk({ role: "assistant", content: [parts[0]] }), chunk({ content: [parts[1]] }), chunk({}, "stop")])] }));
    expect((await clients[format](true)).text).toBe("Hello world");
  });
});

describe("item 5: a 200 JSON body that is an error", () => {
  /** What the SDK of `format` throws for a non-stream request. */
  const thrown = async (format: ClientFormat) => (await clients[format](false).catch((error: unknown) => error)) as { status?: number; message: string };

  it.each(FORMATS)("reaches a %s client as an error with the status the error names (OpenRouter's code)", async (format) => {
    await chatOnly(() => ({ json: { error: { code: 429, message: "Rate limit exceeded: free-models-per-day", metadata: {} } } }));
    const error = await thrown(format);
    expect(error.status).toBe(429);
    expect(error.message).toContain("Rate limit exceeded: free-models-per-day");
    expect(gateway.records.at(-1)!.status).toBe(429);
  });

  it("is a 502 in the client's shape when it names no status, JSON and stream request alike", async () => {
    await chatOnly(() => ({ json: { error: { message: "no healthy upstream" } } }));
    for (const stream of [false, true]) {
      const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ ...ask, stream }) });
      expect(res.status).toBe(502);
      expect(JSON.parse(res.body)).toEqual({ type: "error", error: { type: "api_error", message: "no healthy upstream" } });
    }
  });
});

describe("item 6: only choice 0 is translated", () => {
  const script = either(
    [chunk({ role: "assistant", content: "zero" }), { ...chunk({ content: "ONE" }), choices: [{ index: 1, delta: { role: "assistant", content: "ONE" }, finish_reason: null }] }, chunk({}, "stop")],
    { content: "zero" },
    "stop",
  );
  const twoChoices: Script = (request) => {
    const reply = script(request) as ScriptedReply;
    if (!("json" in reply)) return reply;
    const json = reply.json as ReturnType<typeof completion>;
    return { json: { ...json, choices: [...json.choices, { index: 1, message: { role: "assistant", content: "ONE" }, finish_reason: "stop" }] } };
  };
  for (const { stream, how } of BOTH) {
    it.each(FORMATS)(`a %s client (${how}) gets the first choice alone`, async (format) => {
      await chatOnly(twoChoices);
      expect((await clients[format](stream)).text).toBe("zero");
    });
  }
});

describe("item 7: the end of a chat stream is data: [DONE]", () => {
  it.each(FORMATS)("a %s client gets nothing that follows it, and its stream ends there while the upstream keeps the connection open", async (format) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await chatOnly(() => ({ chunks: [chatSse([chunk({ role: "assistant", content: "done" }), chunk({}, "stop")]), chatSse([chunk({ content: " AFTER" })], false), held] }));
    try {
      expect((await clients[format](true)).text).toBe("done");
    } finally {
      release();
    }
  });
});

describe("item 8: a reply cut by the output limit in the middle of a tool call", () => {
  const cut = '{"command": "ls -';
  const script = either(
    [chunk({ role: "assistant", content: "Listing." }), toolChunk({ id: "call_1", function: { name: "Bash", arguments: "" } }), toolChunk({ function: { arguments: cut } }), chunk({}, "length")],
    { content: "Listing.", tool_calls: [{ id: "call_1", type: "function", function: { name: "Bash", arguments: cut } }] },
    "length",
  );
  const lengthStop: Record<ClientFormat, string> = { messages: "max_tokens", responses: "incomplete", gemini: "MAX_TOKENS" };

  it.each(FORMATS)("a %s client's JSON reply ends with the length stop reason and leaves the unfinished call out", async (format) => {
    await chatOnly(script);
    const reply = await clients[format](false);
    expect(reply).toMatchObject({ text: "Listing.", calls: [], stop: lengthStop[format] });
  });

  it("a messages stream ends the call's block with the pieces that came, and stops for max_tokens", async () => {
    await chatOnly(script);
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ ...ask, stream: true, tools: TOOLS }) });
    const events = decodeEvents(res.body).map((event) => JSON.parse(event.data) as { type: string; delta?: { partial_json?: string; stop_reason?: string } });
    expect(events.flatMap((event) => (event.delta?.partial_json === undefined ? [] : [event.delta.partial_json])).join("")).toBe(cut);
    expect(events.find((event) => event.type === "message_delta")!.delta!.stop_reason).toBe("max_tokens");
  });

  it("a Responses stream closes the call's item as incomplete, as OpenAI does, in a response that is incomplete", async () => {
    await chatOnly(script);
    expect(await clients.responses(true)).toMatchObject({ text: "Listing.", stop: "incomplete" });
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/responses", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", input: "go", tools: FUNCTIONS, stream: true }) });
    const done = decodeEvents(res.body).filter((event) => event.event === "response.output_item.done").map((event) => JSON.parse(event.data).item as Record<string, unknown>);
    expect(done.at(-1)).toMatchObject({ type: "function_call", status: "incomplete", arguments: cut, call_id: "call_1" });
  });

  it("a Gemini stream never sends the unfinished call and ends with MAX_TOKENS", async () => {
    await chatOnly(script);
    expect(await clients.gemini(true)).toMatchObject({ text: "Listing.", calls: [], stop: "MAX_TOKENS" });
  });

  it("a chat client on a messages upstream gets finish_reason length when the reply was cut in a tool_use block", async () => {
    upstream = opened(await startFakeUpstream({ script: () => ({
      json: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }], stop_reason: "max_tokens", usage: { input_tokens: 3, output_tokens: 5 } },
    }) }));
    gateway = opened(await startTestGateway(undefined, { file: { upstream: "anth", upstreams: { anth: { url: upstream.url, formats: ["messages"], key: "none", retries: 0 } } } }));
    const reply = await openai().chat.completions.create({ model: "m", messages: [{ role: "user", content: "go" }] });
    expect(reply.choices[0]!.finish_reason).toBe("length");
  });
});

describe("item 9: reasoning that resumes after the text has started", () => {
  it("does not open a second thinking block after the text in a messages stream, and the message goes back next turn", async () => {
    await chatOnly(() => ({
      chunks: [chatSse([chunk({ role: "assistant", reasoning_content: "First, look." }), chunk({ content: "Looking." }), chunk({ reasoning_content: "Use ls." }), toolChunk({ id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }), chunk({}, "tool_calls")])],
    }));
    const message = await anthropic().messages.stream({ ...ask, tools: TOOLS }).finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(message.content[0]).toMatchObject({ thinking: "First, look." });
    upstream.script(() => ({ json: completion({ content: "ok" }) }));
    const next = await anthropic().messages.create({ ...ask, tools: TOOLS, messages: [...ask.messages, { role: "assistant", content: message.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] }] });
    expect(next.content).toEqual([{ type: "text", text: "ok" }]);
    expect((upstream.last().body!.messages as Record<string, unknown>[])[1]).toMatchObject({ role: "assistant", content: "Looking.", reasoning_content: "First, look." });
  });
});

describe("item 10: an upstream's error inside a 200 stream that repeats its key", () => {
  const keyed: Script = (request) => ({ chunks: [chatSse([chunk({ role: "assistant", content: "Hi" }), { error: { message: `Invalid credentials: ${String(request.headers.authorization)}` } }], false)] });
  const streamed: Record<ClientFormat, { path: string; body: Record<string, unknown> }> = {
    messages: { path: "/v1/messages", body: { ...ask, stream: true } },
    responses: { path: "/v1/responses", body: { model: "m", input: "go", stream: true } },
    gemini: { path: "/gemini/v1beta/models/m:streamGenerateContent?alt=sse", body: { contents: [{ role: "user", parts: [{ text: "go" }] }] } },
  };

  it.each(FORMATS)("reaches a %s client with the key hidden in the error event", async (format) => {
    await chatOnly(keyed, { key: "keychain" });
    const headers = format === "messages" ? messagesHeaders(LOCAL_KEY) : format === "gemini" ? { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" } : chatHeaders(LOCAL_KEY);
    const res = await rawRequest(gateway.url, { method: "POST", path: streamed[format].path, headers, body: JSON.stringify(streamed[format].body) });
    expect(upstream.last().headers.authorization).toBe(`Bearer ${FAKE_UPSTREAM_KEY}`);
    expect(res.body).toContain("Invalid credentials: Bearer ***");
    expect(res.body).not.toContain(FAKE_UPSTREAM_KEY);
  });

  it("reaches a chat client on a messages upstream with the key hidden", async () => {
    upstream = opened(await startFakeUpstream({ script: (request) => ({
      chunks: [messagesSse([{ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 0 } } } as never, { type: "error", error: { type: "authentication_error", message: `bad key ${String(request.headers["x-api-key"])}` } } as never])],
    }) }));
    gateway = opened(await startTestGateway(undefined, { file: { upstream: "anth", upstreams: { anth: { url: upstream.url, formats: ["messages"], key: "keychain", retries: 0 } } } }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }) });
    expect(upstream.last().headers["x-api-key"]).toBe(FAKE_UPSTREAM_KEY);
    expect(res.body).toContain("bad key ***");
    expect(res.body).not.toContain(FAKE_UPSTREAM_KEY);
  });
});

describe("item 14: tool-call ids", () => {
  const noId = either(
    [chunk({ role: "assistant", content: "" }), toolChunk({ function: { name: "Bash", arguments: '{"command":"ls"}' } }), chunk({}, "tool_calls")],
    { content: null, tool_calls: [{ type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }] },
    "tool_calls",
  );
  const prefix: Record<ClientFormat, RegExp> = { messages: /^toolu_[0-9a-f]{24}$/, responses: /^call_[0-9a-f]{24}$/, gemini: /^call_[0-9a-f]{24}$/ };

  for (const { stream, how } of BOTH) {
    it.each(FORMATS)(`a call without an id gets one with the %s format's prefix (${how})`, async (format) => {
      await chatOnly(noId);
      const { calls } = await clients[format](stream);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.id).toMatch(prefix[format]);
    });

    it.each(FORMATS)(`an upstream's own id reaches a %s client as it is (${how})`, async (format) => {
      await chatOnly(either([toolChunk({ id: "call_upstream7", function: { name: "Bash", arguments: "{}" } }), chunk({}, "tool_calls")], { content: null, tool_calls: [{ id: "call_upstream7", type: "function", function: { name: "Bash", arguments: "{}" } }] }, "tool_calls"));
      expect((await clients[format](stream)).calls.map((call) => call.id)).toEqual(["call_upstream7"]);
    });
  }
});
