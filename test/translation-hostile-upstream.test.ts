import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { decodeEvents } from "../src/sse/sse.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { chatSse, chunk, completion, messagesSse, startScriptedUpstream, type Script, type ScriptedReply, type ScriptedUpstream } from "./helpers/scripted-upstream.js";

/**
 * Issue 37, items 1-10 and 14: a chat-only upstream sending the odd shapes real servers send, in front of the official
 * SDKs of the other three client formats (and a chat client on a messages-only upstream where the item is about it).
 * Each case names its item; each failed before its fix.
 */

const opened = closeAfterEach();
let upstream: ScriptedUpstream;
let gateway: TestGateway;

async function chatOnly(script: Script, entry: Record<string, unknown> = {}) {
  upstream = opened(await startScriptedUpstream(script));
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

