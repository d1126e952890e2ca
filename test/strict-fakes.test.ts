import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { decodeEvents } from "../src/sse/sse.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { promptTokens, type Refusal } from "./helpers/strict/core.js";
import { firstRefusal, startStrictFake, STRICT_KINDS, type StrictKind } from "./helpers/strict/index.js";
import { LITELLM_VERSION, startStrictLiteLLM, type StrictLiteLLMOptions } from "./helpers/strict/litellm.js";
import { ollamaOverflow, lmstudioOverflow, vllmOverflow } from "./helpers/strict/local-servers.js";
import { openaiOverflow } from "./helpers/strict/openai.js";
import { openrouterOverflow } from "./helpers/strict/openrouter.js";
import { pythonReError, pythonRepr, refusedConstruct } from "./helpers/strict/regex-dialects.js";

/**
 * The strict fakes themselves (issue 49 item 2): each accepts what its real server accepts, serves its model list and
 * streams as it does, and refuses each rule's request with the real status and body, sent over real HTTP.
 */

const opened = closeAfterEach();

type Body = Record<string, unknown>;
const BASH = { type: "function", function: { name: "Bash", description: "Run a shell command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } } };
const CALL = { id: "call_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } };
/** A tool loop every chat server takes: system first, a call and its result. */
const LOOP = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "List the files." },
  { role: "assistant", content: null, tool_calls: [CALL] },
  { role: "tool", tool_call_id: "call_1", content: "a.txt" },
];
/** Claude Code 2.1.265's `Artifact` pattern, as SPEC 12 quotes it. */
const ARTIFACT_PATTERN = String.raw`^(?!__.*__$)[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}"\\./[\]]{1,200}$`;
const withPattern = (pattern: string, name = "Artifact") => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: { field: { type: "string", pattern } }, required: ["field"] } },
});

async function post(kind: StrictKind, body: Body, path = "/v1/chat/completions", contextWindow?: number) {
  const fake = opened(await startStrictFake(kind, { contextWindow }));
  const res = await fetch(`${fake.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as unknown };
}

const openaiError = (message: string, param: string | null, code: string | null) => ({ error: { message, type: "invalid_request_error", param, code } });
const deepseekError = (message: string) => ({ error: { message, type: "invalid_request_error", param: null, code: "invalid_request_error" } });

describe("a request the real server accepts passes its strict fake", () => {
  const accepted: [keyof typeof STRICT_KINDS, Body, string?][] = [
    ["openai", { model: "gpt-5.4", messages: LOOP, tools: [BASH], max_completion_tokens: 100 }],
    ["deepseek", { model: "deepseek-v4-flash", messages: [LOOP[0], LOOP[1], { ...LOOP[2], reasoning_content: "I should list them." }, LOOP[3]], tools: [BASH], max_tokens: 100 }],
    ["openrouter", { model: "openai/gpt-5.4", messages: LOOP, tools: [BASH] }],
    ["vllm", { model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", messages: LOOP, tools: [BASH], max_tokens: 100 }],
    ["ollama", { model: "qwen3-coder:30b", messages: LOOP, tools: [BASH] }],
    ["lmstudio", { model: "qwen2-vl-7b-instruct", messages: LOOP, tools: [BASH] }],
    ["deepseek-anthropic", { model: "deepseek-v4-flash", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [{ name: "Bash", input_schema: BASH.function.parameters }] }, "/anthropic/v1/messages"],
  ];
  it.each(accepted)("%s answers 200", async (name, body, path) => {
    const res = await post(STRICT_KINDS[name], JSON.parse(JSON.stringify(body)) as Body, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("each serves its model list on its real path and in its real shape", async () => {
    for (const [name, path] of [["openai", "/v1/models"], ["openrouter", "/api/v1/models"], ["vllm", "/v1/models"], ["deepseek", "/v1/models"]] as const) {
      const fake = opened(await startStrictFake(STRICT_KINDS[name]));
      const list = (await (await fetch(`${fake.url}${path}`)).json()) as { data: { id: string; max_model_len?: number; context_length?: number }[] };
      expect(list.data.length, name).toBeGreaterThan(0);
    }
    const vllm = opened(await startStrictFake(STRICT_KINDS.vllm));
    expect(((await (await fetch(`${vllm.url}/v1/models`)).json()) as { data: { max_model_len: number }[] }).data[0]!.max_model_len).toBe(32768);
  });

  it("streams as the real server does, read by the official OpenAI SDK: the usage chunk only when asked, then [DONE]", async () => {
    const fake = opened(await startStrictFake(STRICT_KINDS.openai));
    const client = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const asked = await client.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of asked) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("ok");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 1 } });
    const plain = await fetch(`${fake.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], stream: true }) });
    const events = decodeEvents(await plain.text());
    expect(events.at(-1)!.data).toBe("[DONE]");
    expect(events.some((event) => event.data.includes('"usage"'))).toBe(false);
  });
});

describe("the openai strict fake refuses what OpenAI refuses, with its 400 and words", () => {
  const openai = STRICT_KINDS.openai;

  it("Claude Code's Artifact schema pattern: 400 \"Invalid schema for function 'Artifact': ... is not a 'regex'\"", async () => {
    const res = await post(openai, { model: "gpt-5.4", messages: [{ role: "user", content: "hi" }], tools: [BASH, withPattern(ARTIFACT_PATTERN)] });
    expect(res).toEqual({
      status: 400,
      body: openaiError(String.raw`Invalid schema for function 'Artifact': '^(?!__.*__$)[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}"\\\\./[\\]]{1,200}$' is not a 'regex'.`, "tools[1].function.parameters", "invalid_function_parameters"),
    });
  });

  const CASES: [string, Body, unknown][] = [
    ["a function name with a dot", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "mcp.read" } }] },
      openaiError("Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", "tools[0].function.name", "invalid_value")],
    ["a function name of 65 characters", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "a".repeat(65) } }] },
      openaiError("Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.", "tools[0].function.name", "string_above_max_length")],
    ["a function name with a dot in an earlier call", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ ...CALL, function: { name: "mcp.read", arguments: "{}" } }] }, { role: "tool", tool_call_id: "call_1", content: "a" }] },
      openaiError("Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", "messages[1].tool_calls[0].function.name", "invalid_value")],
    ["129 tools", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: Array.from({ length: 129 }, (_, i) => ({ type: "function", function: { name: `t${i}` } })) },
      openaiError("Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead.", "tools", "array_above_max_length")],
    ["a tool message without its call", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "call_1", content: "a.txt" }] },
      openaiError("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "messages.[1].role", null)],
    ["a call left unanswered", { model: "gpt-4.1", messages: [...LOOP.slice(0, 3), { role: "user", content: "go on" }] },
      openaiError("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1", "messages.[3].role", null)],
    ["an empty assistant message", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null }, { role: "user", content: "again" }] },
      openaiError("Invalid value for 'content': expected a string, got null.", "messages.[1].content", null)],
    ["max_tokens to a reasoning model", { model: "gpt-5.4", messages: [{ role: "user", content: "hi" }], max_tokens: 100 },
      openaiError("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")],
    ["a body field it does not know", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], thinking: { type: "enabled" } },
      openaiError("Unrecognized request argument supplied: thinking", null, null)],
    ["a strict function with an open object", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { ...BASH.function, strict: true } }] },
      openaiError("Invalid schema for function 'Bash': In context=(), 'additionalProperties' is required to be supplied and to be false.", "tools[0].function.parameters", "invalid_function_parameters")],
    ["a strict function with an optional property", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "Read", strict: true, parameters: { type: "object", additionalProperties: false, properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] } } }] },
      openaiError("Invalid schema for function 'Read': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'limit'.", "tools[0].function.parameters", "invalid_function_parameters")],
    ["a strict function with a default", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "Ask", strict: true, parameters: { type: "object", additionalProperties: false, properties: { error: { type: "string", default: "" } }, required: ["error"] } } }] },
      openaiError("Invalid schema for function 'Ask': In context=('properties', 'error'), 'default' is not permitted.", "tools[0].function.parameters", "invalid_function_parameters")],
    ["a strict function with allOf in an array's items", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "Comment", strict: true, parameters: { type: "object", additionalProperties: false, properties: { rich_text: { type: "array", items: { allOf: [{ type: "object" }] } } }, required: ["rich_text"] } } }] },
      openaiError("Invalid schema for function 'Comment': In context=('properties', 'rich_text', 'items'), 'allOf' is not permitted.", "tools[0].function.parameters", "invalid_function_parameters")],
    ["a strict function with lookaround in a pattern", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "Send", strict: true, parameters: { type: "object", additionalProperties: false, properties: { email: { type: "string", pattern: "^(?!\\.)[a-z.]+@x$" } }, required: ["email"] } } }] },
      openaiError("Invalid JSON schema: regex lookaround is not supported. Found at $.properties.email.pattern.", "tools", "invalid_json_schema")],
    ["a function, strict or not, with lookaround in a pattern (Claude Code 2.1.332's Artifact doc_id)", { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }], tools: [BASH, withPattern(String.raw`^(?!\.\.?(?:\/|$))[A-Za-z0-9_\-.~:@+]{1,200}$`)] },
      openaiError("Invalid JSON schema: regex lookaround is not supported. Found at $.properties.field.pattern.", "tools", "invalid_json_schema")],
  ];
  it.each(CASES)("%s", async (_name, body, error) => {
    expect(await post(openai, body)).toEqual({ status: 400, body: error });
  });

  it("a prompt beyond the window, in the words of the fixture", async () => {
    const res = await post(openai, { model: "gpt-4.1", messages: [{ role: "user", content: "x".repeat(4000) }] }, undefined, 500);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { param: "messages", code: "context_length_exceeded", message: expect.stringMatching(/^This model's maximum context length is 500 tokens\. However, your messages resulted in \d+ tokens\./) as unknown } });
  });
});

describe("the other strict fakes refuse in their own envelopes", () => {
  it("DeepSeek: a pattern with \\u0000, a thinking tool loop without reasoning_content, a tool message without its call, a name with a space", async () => {
    const deepseek = STRICT_KINDS.deepseek;
    const user = { role: "user", content: "hi" };
    expect(await post(deepseek, { model: "deepseek-v4-flash", messages: [user], tools: [withPattern(String.raw`^[^\u0000]*$`, "Write")] })).toEqual({
      status: 400,
      body: deepseekError(String.raw`Invalid schema for function 'Write': "^[^\\u0000]*$" is not a "regex"`),
    });
    expect(await post(deepseek, { model: "deepseek-v4-flash", messages: LOOP, tools: [BASH] })).toEqual({ status: 400, body: deepseekError("The reasoning_content in the thinking mode must be passed back to the API.") });
    expect((await post(deepseek, { model: "deepseek-v4-flash", thinking: { type: "disabled" }, messages: LOOP, tools: [BASH] })).status).toBe(200);
    expect(await post(deepseek, { model: "deepseek-chat", messages: [user, { role: "tool", tool_call_id: "x", content: "a" }] })).toEqual({
      status: 400,
      body: deepseekError("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"),
    });
    expect(await post(deepseek, { model: "deepseek-chat", messages: [...LOOP.slice(0, 3), user] })).toEqual({
      status: 400,
      body: deepseekError("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)"),
    });
    expect(await post(deepseek, { model: "deepseek-chat", messages: [user], tools: [{ type: "function", function: { name: "read file" } }] })).toEqual({
      status: 400,
      body: deepseekError("Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."),
    });
    expect(await post(deepseek, { model: "deepseek-chat", messages: [user], max_tokens: 500000 })).toEqual({ status: 400, body: deepseekError("Invalid max_tokens value, the valid range of max_tokens is [1, 393216]") });
  });

  it("DeepSeek's /anthropic endpoint refuses Claude Code's Artifact pattern", async () => {
    const res = await post(STRICT_KINDS["deepseek-anthropic"], { model: "deepseek-v4-flash", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [{ name: "Artifact", input_schema: withPattern(ARTIFACT_PATTERN).function.parameters }] }, "/anthropic/v1/messages");
    expect(res).toEqual({ status: 400, body: deepseekError(`Invalid schema for function 'Artifact': ${JSON.stringify(ARTIFACT_PATTERN)} is not a "regex"`) });
  });

  it("OpenRouter passes OpenAI's refusal on as \"Provider returned error\" with the raw body", async () => {
    const res = await post(STRICT_KINDS.openrouter, { model: "openai/gpt-5.4", messages: [{ role: "user", content: "hi" }], tools: [withPattern(ARTIFACT_PATTERN)] }, "/api/v1/chat/completions");
    expect(res.status).toBe(400);
    const { error } = res.body as { error: { message: string; code: number; metadata: { raw: string; provider_name: string } } };
    expect(error).toMatchObject({ message: "Provider returned error", code: 400, metadata: { provider_name: "OpenAI" } });
    expect(JSON.parse(error.metadata.raw)).toMatchObject({ error: { code: "invalid_function_parameters", param: "tools[0].function.parameters" } });
  });

  it("vLLM: a system message after the first is its template's 400", async () => {
    const messages = [LOOP[0], LOOP[1], { role: "system", content: "Approval mode changed." }];
    expect(await post(STRICT_KINDS.vllm, { model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", messages })).toEqual({
      status: 400,
      body: { error: { message: "System message must be at the beginning. None", type: "BadRequestError", param: null, code: 400 } },
    });
  });

  it("generic: the rules every chat server shares, in OpenAI's envelope, and none of OpenAI's own", async () => {
    const generic = STRICT_KINDS.generic;
    const user = { role: "user", content: "hi" };
    expect(await post(generic, { model: "m", messages: [user], tools: [{ type: "function", function: { name: "mcp.read" } }] })).toEqual({
      status: 400,
      body: openaiError("Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", "tools[0].function.name", "invalid_value"),
    });
    expect(await post(generic, { model: "m", messages: [user, { role: "tool", tool_call_id: "call_1", content: "a" }] })).toEqual({
      status: 400,
      body: openaiError("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "messages.[1].role", null),
    });
    expect(await post(generic, { model: "m", messages: [...LOOP.slice(0, 3), user] })).toEqual({
      status: 400,
      body: openaiError("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1", "messages.[3].role", null),
    });
    expect(await post(generic, { model: "m", messages: [user, { role: "assistant", content: null }, user] })).toEqual({
      status: 400,
      body: openaiError("Invalid value for 'content': expected a string, got null.", "messages.[1].content", null),
    });
    // What only OpenAI refuses passes: an unknown field, a Python-`re` pattern, lookaround, 129 tools.
    const many = Array.from({ length: 129 }, (_, i) => ({ type: "function", function: { name: `t${i}` } }));
    expect((await post(generic, { model: "m", messages: [user], thinking: { type: "enabled" }, tools: [withPattern(ARTIFACT_PATTERN), ...many] })).status).toBe(200);
  });

  it("Ollama and LM Studio: no messages, in their own words", async () => {
    expect(await post(STRICT_KINDS.ollama, { model: "qwen3-coder:30b", messages: [] })).toEqual({ status: 400, body: { error: { message: "[] is too short - 'messages'", type: "invalid_request_error", param: null, code: null } } });
    expect(await post(STRICT_KINDS.lmstudio, { model: "qwen2-vl-7b-instruct", messages: [] })).toEqual({ status: 400, body: { error: "'messages' field is required" } });
  });
});

describe("the strict LiteLLM (1.81.12): its auth in its order, its model errors, its headers and its streams", () => {
  const litellmError = (message: string, type: string, code: string) => ({ error: { message, type, param: "None", code } });
  async function ask(options: StrictLiteLLMOptions, key: string | undefined, body: Body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, path = "/v1/chat/completions") {
    const fake = opened(await startStrictLiteLLM(options));
    const res = await fetch(`${fake.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
    return { status: res.status, version: res.headers.get("x-litellm-version"), text: await res.text() };
  }
  const json = (reply: { status: number; text: string }) => ({ status: reply.status, body: JSON.parse(reply.text) as unknown });

  it("without a master key every request passes, keyless too; every reply says its version", async () => {
    const reply = await ask({}, undefined);
    expect([reply.status, reply.version]).toEqual([200, LITELLM_VERSION]);
  });

  it("with a master key: none is 401, the master key passes, another key is 400 no_db_connection without a database and 401 with one", async () => {
    const masterKey = "sk-master";
    expect(json(await ask({ masterKey }, undefined))).toEqual({ status: 401, body: litellmError("Authentication Error, No api key passed in.", "auth_error", "401") });
    expect((await ask({ masterKey }, masterKey)).status).toBe(200);
    expect(json(await ask({ masterKey }, "sk-other"))).toEqual({ status: 400, body: litellmError("No connected db.", "no_db_connection", "400") });
    const withDb = { masterKey, virtualKeys: { "sk-virtual": {} } };
    expect((await ask(withDb, "sk-virtual")).status).toBe(200);
    expect(json(await ask(withDb, "sk-other"))).toEqual({
      status: 401,
      body: litellmError("Authentication Error, Invalid proxy server token passed. Unable to find token in cache or `LiteLLM_VerificationTokenTable`", "auth_error", "401"),
    });
  });

  it("a model no deployment serves is 400 in its words; /key/info without a database is its 400", async () => {
    expect(json(await ask({}, undefined, { model: "gpt-9", messages: [{ role: "user", content: "hi" }] }))).toEqual({
      status: 400,
      body: { error: { message: "/chat/completions: Invalid model name passed in model=gpt-9. Call `/v1/models` to view available models for your key.", type: "None", param: "None", code: "400" } },
    });
    const fake = opened(await startStrictLiteLLM({ masterKey: "sk-master" }));
    const info = await fetch(`${fake.url}/key/info`, { headers: { authorization: "Bearer sk-master" } });
    expect({ status: info.status, body: await info.json() }).toEqual({
      status: 400,
      body: litellmError("Authentication Error, Database not connected. Connect a database to your proxy - https://docs.litellm.ai/docs/simple_proxy#managing-auth---virtual-keys", "auth_error", "400"),
    });
  });

  it("its model list names every model owned_by openai, created 1677610602; a Responses stream ends with data: [DONE] after response.completed", async () => {
    const fake = opened(await startStrictLiteLLM());
    const list = (await (await fetch(`${fake.url}/v1/models`)).json()) as { data: { owned_by: string; created: number }[] };
    expect(list.data.length).toBeGreaterThan(0);
    for (const model of list.data) expect(model).toMatchObject({ owned_by: "openai", created: 1677610602 });
    const stream = await ask({}, undefined, { model: "gpt-4o-mini", input: "hi", stream: true }, "/v1/responses");
    expect(stream.text.trimEnd().split("\n\n").slice(-2).map((line) => line.slice(0, 40))).toEqual(['data: {"type":"response.completed","sequ', "data: [DONE]"]);
  });
});

describe("each fake's overflow is its server's recorded wording (test/fixtures/context-overflow-errors.json)", () => {
  interface Case {
    server: string;
    status: number;
    body: unknown;
  }
  const { cases } = JSON.parse(readFileSync(new URL("fixtures/context-overflow-errors.json", import.meta.url), "utf8")) as { cases: Case[] };
  const bodyOf = (server: string) => cases.find((c) => c.server === server)!.body;
  const wrapped = (kind: StrictKind, refusal: ReturnType<typeof openaiOverflow> | undefined) => kind.envelope(refusal!);

  it("OpenAI, vLLM (both checks), Ollama, OpenRouter and LM Studio", () => {
    expect(wrapped(STRICT_KINDS.openai, openaiOverflow(130512, 128000))).toEqual(bodyOf("openai"));
    expect(wrapped(STRICT_KINDS.vllm, vllmOverflow(30001, 4096, 32768))).toEqual(bodyOf("vllm"));
    expect(wrapped(STRICT_KINDS.vllm, vllmOverflow(40000, 0, 32768))).toEqual(bodyOf("vllm (serving layer)"));
    expect(wrapped(STRICT_KINDS.ollama, ollamaOverflow(12213, 0, 8192))).toEqual(bodyOf("ollama"));
    expect(wrapped(STRICT_KINDS.openrouter, openrouterOverflow(136225, 4096, 131072))).toEqual(bodyOf("openrouter"));
    expect(wrapped(STRICT_KINDS.lmstudio, lmstudioOverflow(6269, 0, 4096))).toEqual(bodyOf("lmstudio"));
  });

  it("each fake refuses a prompt beyond its window over HTTP with its status and envelope", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "x".repeat(4000) }], max_tokens: 100 };
    const prompt = promptTokens(body);
    const cases: [StrictKind, Refusal, string][] = [
      [STRICT_KINDS.vllm, vllmOverflow(prompt, 100, 500), "/v1/chat/completions"],
      [STRICT_KINDS.ollama, ollamaOverflow(prompt, 100, 500)!, "/v1/chat/completions"],
      [STRICT_KINDS.lmstudio, lmstudioOverflow(prompt, 100, 500)!, "/v1/chat/completions"],
      [STRICT_KINDS.openrouter, openrouterOverflow(prompt, 100, 500), "/api/v1/chat/completions"],
    ];
    for (const [kind, refusal, path] of cases) expect(await post(kind, body, path, 500), kind.name).toEqual({ status: 400, body: kind.envelope(refusal) });
  });

  it("a fake measures a real request against its window: vLLM counts the requested output too", () => {
    const body = { model: "m", messages: [{ role: "user", content: "x".repeat(400) }], max_tokens: 4096 };
    expect(firstRefusal(STRICT_KINDS.vllm, body, { contextWindow: 4096 })?.message).toMatch(/^This model's maximum context length is 4096 tokens\. However, you requested 4096 output tokens/);
    expect(firstRefusal(STRICT_KINDS.vllm, body, { contextWindow: 8192 })).toBeUndefined();
  });
});

describe("regex dialects", () => {
  it("Python's re: \\p{...}, \\u{...}, named groups and unknown escapes fail; lookaround, possessive and \\u0000 compile", () => {
    expect(pythonReError(ARTIFACT_PATTERN)).toBe("bad escape \\p");
    expect(pythonReError(String.raw`^\u{1F600}$`)).toBe("incomplete escape \\u{1F6");
    expect(pythonReError("(?<year>\\d{4})")).toBe("unknown extension ?<y");
    expect(pythonReError(String.raw`\z`)).toBe("bad escape \\z");
    for (const fine of ["^(?!__)[a-z]+$", "a*+", String.raw`^[^\u0000]*$`, "(?<=a)b", String.raw`[\]]`]) expect(pythonReError(fine), fine).toBeUndefined();
  });

  it("SPEC 12's list: lookaround, \\p{...}, \\u{...}, \\u0000, atomic and possessive", () => {
    expect([ARTIFACT_PATTERN, "\\p{L}", "\\u{41}", String.raw`^[^\u0000]*$`, "(?>a)", "a++", "^[a-z]+$", String.raw`\\p{x}`].map(refusedConstruct)).toEqual([
      "lookaround", "unicode property escape", "code point escape", "\\u escape", "atomic group", "possessive quantifier", undefined, undefined,
    ]);
    // Quantifier and group characters inside a class are literals: Claude Code 2.1.332's Monitor tool (an HTTP
    // header name's token characters) compiles everywhere.
    expect(["^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", "[(?=x)]", String.raw`\(?=a\)`].map(refusedConstruct)).toEqual([undefined, undefined, undefined]);
  });

  it("Python's repr, as OpenAI quotes a pattern", () => {
    expect(pythonRepr(String.raw`a\b'c`)).toBe(String.raw`"a\\b'c"`);
    expect(pythonRepr("a\nb")).toBe(String.raw`'a\nb'`);
  });
});
