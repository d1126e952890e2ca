import { describe, expect, it } from "vitest";
import { countTokensRequest, geminiClient } from "../src/formats/gemini/translators.js";
import type { Json } from "../src/translate/hub.js";
import { testContext, testSeal } from "./helpers/translate.js";

/** Gemini -> chat requests (toHub). Replies and streams: translate-gemini-reply/-stream.test.ts. */

const toHub = (body: Json) => geminiClient.toHub(body, testContext());
const messagesOf = (contents: Json[]) => toHub({ contents }).request.messages;
const user = (...parts: Json[]) => ({ role: "user", parts });
const model = (...parts: Json[]) => ({ role: "model", parts });
const call = (name: string, args: Json, id?: string) => ({ functionCall: { ...(id ? { id } : {}), name, args } });
const answer = (name: string, output: string, id?: string) => ({ functionResponse: { ...(id ? { id } : {}), name, response: { output } } });

describe("Gemini CLI's requests (golden inputs, as recorded from Gemini CLI 0.61)", () => {
  it("the router's generateJson call becomes a JSON-schema request with lower-cased types and high effort", () => {
    const body = {
      contents: [user({ text: "fix the failing test in src/a.ts" })],
      systemInstruction: { role: "user", parts: [{ text: "You are a routing classifier." }] },
      generationConfig: {
        temperature: 1,
        topP: 0.95,
        topK: 64,
        responseMimeType: "application/json",
        responseJsonSchema: {
          type: "OBJECT",
          properties: { complexity_reasoning: { type: "STRING", description: "why" }, complexity_score: { type: "INTEGER" } },
          required: ["complexity_reasoning", "complexity_score"],
        },
        thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" },
      },
    };
    expect(toHub(body)).toEqual({
      request: {
        model: "upstream-model",
        messages: [
          { role: "system", content: "You are a routing classifier." },
          { role: "user", content: "fix the failing test in src/a.ts" },
        ],
        temperature: 1,
        top_p: 0.95,
        response_format: {
          type: "json_schema",
          json_schema: {
            name: "response",
            schema: {
              type: "object",
              properties: { complexity_reasoning: { type: "string", description: "why" }, complexity_score: { type: "integer" } },
              required: ["complexity_reasoning", "complexity_score"],
            },
          },
        },
        reasoning_effort: "high",
      },
      hints: { includeThoughts: true, jsonText: true },
    });
  });

  it("a streamed turn with run_shell_command (parametersJsonSchema) keeps tools, calls and results paired", () => {
    const shell = {
      name: "run_shell_command",
      description: "Runs a shell command.",
      parametersJsonSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { command: { type: "string", description: "The command." }, is_background: { type: "boolean" } },
        required: ["command"],
      },
    };
    const body = {
      stream: true,
      contents: [
        user({ text: "<session_context>cwd: /repo</session_context>" }, { text: "list the files" }),
        model(
          { text: "Listing the files", thought: true },
          { text: "I'll list them." },
          { functionCall: { id: "run_shell_command__call_1", name: "run_shell_command", args: { command: "ls", is_background: false } }, thoughtSignature: "skip_thought_signature_validator" },
        ),
        user({ functionResponse: { id: "run_shell_command__call_1", name: "run_shell_command", response: { output: "a.ts\nb.ts" } } }),
      ],
      systemInstruction: { parts: [{ text: "You are Gemini CLI." }, { text: "Be brief." }] },
      tools: [{ functionDeclarations: [shell, { name: "read_file", description: "Reads a file.", parametersJsonSchema: { type: "object", properties: { file_path: { type: "string" } } } }] }],
      generationConfig: { temperature: 0, topP: 1, topK: 64, thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 } },
    };
    expect(toHub(body)).toEqual({
      request: {
        model: "upstream-model",
        stream: true,
        messages: [
          { role: "system", content: "You are Gemini CLI.\nBe brief." },
          { role: "user", content: "<session_context>cwd: /repo</session_context>\nlist the files" },
          {
            role: "assistant",
            content: "I'll list them.",
            tool_calls: [{ id: "run_shell_command__call_1", type: "function", function: { name: "run_shell_command", arguments: '{"command":"ls","is_background":false}' } }],
          },
          { role: "tool", tool_call_id: "run_shell_command__call_1", content: "a.ts\nb.ts" },
        ],
        tools: [
          {
            type: "function",
            function: {
              name: "run_shell_command",
              description: "Runs a shell command.",
              parameters: { type: "object", properties: { command: { type: "string", description: "The command." }, is_background: { type: "boolean" } }, required: ["command"] },
            },
          },
          { type: "function", function: { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { file_path: { type: "string" } } } } },
        ],
        temperature: 0,
        top_p: 1,
        reasoning_effort: "medium",
      },
      hints: { includeThoughts: true, jsonText: false },
    });
  });
});

describe("tool calls and their results are paired by id", () => {
  it("a call without an id takes the id Gemini CLI made up and sent back in functionResponse.id", () => {
    expect(messagesOf([user({ text: "go" }), model(call("run_shell_command", { command: "ls" })), user(answer("run_shell_command", "ok", "run_shell_command__1700000000_0"))])).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "run_shell_command__1700000000_0", type: "function", function: { name: "run_shell_command", arguments: '{"command":"ls"}' } }] },
      { role: "tool", tool_call_id: "run_shell_command__1700000000_0", content: "ok" },
    ]);
  });

  it("two calls to the same tool in one turn get distinct ids, with or without ids in the responses (table E row 22)", () => {
    const withIds = messagesOf([user({ text: "go" }), model(call("read_file", { p: "a" }), call("read_file", { p: "b" })), user(answer("read_file", "A", "x1"), answer("read_file", "B", "x2"))]);
    expect(withIds.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "x1", type: "function", function: { name: "read_file", arguments: '{"p":"a"}' } },
          { id: "x2", type: "function", function: { name: "read_file", arguments: '{"p":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "x1", content: "A" },
      { role: "tool", tool_call_id: "x2", content: "B" },
    ]);
    const without = messagesOf([user({ text: "go" }), model(call("read_file", { p: "a" }), call("read_file", { p: "b" })), user(answer("read_file", "A"), answer("read_file", "B"))]);
    expect(without.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1_0", type: "function", function: { name: "read_file", arguments: '{"p":"a"}' } },
          { id: "call_1_1", type: "function", function: { name: "read_file", arguments: '{"p":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1_0", content: "A" },
      { role: "tool", tool_call_id: "call_1_1", content: "B" },
    ]);
  });

  it("a response without an id answers the oldest unanswered call of its name; one with a stranger id too", () => {
    const messages = messagesOf([
      user({ text: "go" }),
      model(call("glob", { p: "*" }, "g1"), call("grep", { q: "x" }, "r1"), call("glob", { p: "**" }, "g2")),
      user(answer("grep", "found", "r1"), answer("glob", "one"), answer("glob", "two", "unknown-id")),
    ]);
    expect(messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "r1", content: "found" },
      { role: "tool", tool_call_id: "g1", content: "one" },
      { role: "tool", tool_call_id: "g2", content: "two" },
    ]);
  });

  it("a response to no call in the history reaches the model as text, not as a tool message a server would refuse", () => {
    expect(messagesOf([user(answer("lost_tool", "late result", "zz"))])).toEqual([{ role: "user", content: "[Result of lost_tool]\nlate result" }]);
  });

  it("tool messages come before the user's text of the same turn; non-output responses are sent as JSON", () => {
    const messages = messagesOf([
      user({ text: "go" }),
      model(call("a", {}, "1"), call("b", {}, "2")),
      { role: "function", parts: [{ text: "and then stop" }, answer("a", "A", "1"), { functionResponse: { id: "2", name: "b", response: { error: "denied" } } }] },
    ]);
    expect(messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "1", content: "A" },
      { role: "tool", tool_call_id: "2", content: '{"error":"denied"}' },
      { role: "user", content: "and then stop" },
    ]);
  });
});

describe("contents", () => {
  it("images: inline and file images as image parts, other files as a note, response images hoisted after the tool messages", () => {
    const png = { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } };
    const messages = messagesOf([
      user({ text: "look" }, png, { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } }, { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/a.jpg" } }),
      model(call("read_file", { path: "a.png" }, "c1")),
      user({ functionResponse: { id: "c1", name: "read_file", response: { output: "Binary content provided (1 item(s))." }, parts: [png] } }, { inlineData: { mimeType: "image/gif", data: "R0lG" } }),
    ]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "text", text: "[application/pdf attachment not sent: this model is reached through an API that takes only text and images]" },
          { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
        ],
      },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.png"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "Binary content provided (1 item(s))." },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "data:image/gif;base64,R0lG" } },
        ],
      },
    ]);
  });

  it("thoughts and thought signatures never reach the upstream; a turn of thoughts only leaves no message", () => {
    expect(
      messagesOf([user({ text: "hi" }), model({ text: "pondering", thought: true, thoughtSignature: "c2ln" }), model({ text: "Hello", thoughtSignature: "c2ln" }), user({ text: "bye" })]),
    ).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello" },
      { role: "user", content: "bye" },
    ]);
  });

  it("reasoning the gateway sealed into a call's thoughtSignature goes back under its field (DeepSeek's thinking mode needs it, table E row 9)", () => {
    const first = call("run_shell_command", { command: "ls" }, "call_1");
    const second = call("read_file", { path: "a" }, "call_2");
    const messages = messagesOf([
      user({ text: "list and read" }),
      model({ ...first, thoughtSignature: testSeal.seal("List first. ", "reasoning_content") }, { ...second, thoughtSignature: testSeal.seal("Then read.", "reasoning_content") }),
      user(answer("run_shell_command", "a", "call_1"), answer("read_file", "x", "call_2")),
      model({ ...call("read_file", { path: "b" }, "call_3"), thoughtSignature: "skip_thought_signature_validator" }),
      user(answer("read_file", "y", "call_3")),
    ]);
    expect(messages[1]).toMatchObject({ role: "assistant", reasoning_content: "List first. Then read." });
    expect(messages[4]).not.toHaveProperty("reasoning_content");
    expect(JSON.stringify(messages)).not.toMatch(/gw1\.|skip_thought/);
  });

  it("snake_case fields (Google's REST examples) read like camelCase ones", () => {
    const { request } = toHub({
      system_instruction: { parts: [{ text: "sys" }] },
      contents: [{ role: "user", parts: [{ text: "see" }, { inline_data: { mime_type: "image/png", data: "AA==" } }] }],
      tools: [{ function_declarations: [{ name: "f", parameters: { type: "OBJECT", properties: { n: { type: "INTEGER" } } } }] }],
      tool_config: { function_calling_config: { mode: "ANY", allowed_function_names: ["f"] } },
      generation_config: { max_output_tokens: 100, stop_sequences: ["END"] },
    });
    expect(request).toEqual({
      model: "upstream-model",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }] },
      ],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { n: { type: "integer" } } } } }],
      tool_choice: { type: "function", function: { name: "f" } },
      max_tokens: 100,
      stop: ["END"],
    });
  });
});

describe("countTokens bodies", () => {
  it("the generate request is the body itself or its generateContentRequest", () => {
    const inner = { model: "models/m", contents: [user({ text: "count me" })] };
    expect(countTokensRequest({ generateContentRequest: inner })).toBe(inner);
    const bare = { contents: [user({ text: "count me" })] };
    expect(countTokensRequest(bare)).toBe(bare);
    expect(toHub(countTokensRequest({ generateContentRequest: inner })).request.messages).toEqual([{ role: "user", content: "count me" }]);
  });
});
