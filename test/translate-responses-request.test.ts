import { describe, expect, it } from "vitest";
import { text } from "./helpers/codex-requests.js";
import { testSeal } from "./helpers/translate.js";
import { toHub } from "./helpers/translate-responses.js";

/** Responses requests as chat requests (`responsesClient.toHub`): messages, items, and what chat cannot say. */

describe("responses requests: messages and items", () => {
  it("makes a string input one user message and leaves out every field chat has no word for; Codex's prompt_cache_key goes on, for the kinds that take it", () => {
    const { request } = toHub({
      model: "m",
      input: "Hello",
      store: true,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "k",
      truncation: "auto",
      metadata: { a: "b" },
      service_tier: "flex",
      background: false,
      user: "u",
      top_logprobs: 2,
      text: { verbosity: "high", format: { type: "text" } },
      reasoning: { effort: "none", summary: "detailed" },
    });
    expect(request).toEqual({ model: "upstream-model", messages: [{ role: "user", content: "Hello" }], prompt_cache_key: "k" });
  });

  it("copies max_output_tokens, temperature and top_p, and no tool_choice or parallel_tool_calls without tools", () => {
    const { request } = toHub({ input: "Hi", max_output_tokens: 32000, temperature: 0.2, top_p: 0.9, tool_choice: "required", parallel_tool_calls: true, tools: [{ type: "web_search" }] });
    expect(request).toEqual({ model: "upstream-model", messages: [{ role: "user", content: "Hi" }], max_tokens: 32000, temperature: 0.2, top_p: 0.9 });
  });

  it.each([
    ["minimal", "low"],
    ["low", "low"],
    ["medium", "medium"],
    ["high", "high"],
    ["xhigh", "high"],
    ["none", undefined],
    ["constructor", undefined],
  ])("maps reasoning.effort %s to reasoning_effort %s", (effort, expected) => {
    expect(toHub({ input: "Hi", reasoning: { effort } }).request.reasoning_effort).toBe(expected);
  });

  it("turns text.format into response_format", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    expect(toHub({ input: "Hi", text: { format: { type: "json_schema", name: "answer", schema, strict: true } } }).request.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "answer", schema, strict: true },
    });
    expect(toHub({ input: "Hi", text: { format: { type: "json_object" } } }).request.response_format).toEqual({ type: "json_object" });
  });

  it("refuses previous_response_id with a 400 that says to send the whole conversation", () => {
    expect(() => toHub({ input: "Hi", previous_response_id: "resp_1" })).toThrow(
      expect.objectContaining({ status: 400, type: "invalid_request_error", param: "previous_response_id", message: expect.stringContaining("Send the whole conversation in input") }),
    );
    expect(() => toHub({ input: "Hi", previous_response_id: null })).not.toThrow();
  });

  it("maps roles (developer to system), parts (images with their detail, assistant output_text) and merges consecutive same-role text", () => {
    const { request } = toHub({
      input: [
        { role: "system", content: "Be brief." },
        { type: "message", role: "developer", content: [text("Use tabs.")] },
        { role: "user", content: [text("What is this?"), { type: "input_image", image_url: "data:image/png;base64,AAA", detail: "high" }] },
        { role: "user", content: [{ type: "input_image", image_url: "https://x.test/a.png", detail: "original" }, { type: "input_file", filename: "a.pdf", file_data: "..." }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "A cat", annotations: [] }, { type: "output_text", text: "." }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Anything else?" }] },
        { role: "user", content: [text("")] },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: "Be brief.\n\nUse tabs." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAA", detail: "high" } },
          { type: "image_url", image_url: { url: "https://x.test/a.png" } },
          { type: "text", text: "[file a.pdf not shown: this model takes no files]" },
        ],
      },
      { role: "assistant", content: "A cat.\n\nAnything else?" },
    ]);
  });

  it("keeps system text first: a developer message sent mid-conversation becomes user text at its place, marked as system as a messages request's is (Qwen and llama.cpp templates reject a late system message)", () => {
    const { request } = toHub({
      instructions: "Base.",
      input: [
        { role: "developer", content: "Sandbox on." },
        { role: "user", content: "Hi" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello" }] },
        { role: "developer", content: "<collaboration_mode>plan</collaboration_mode>" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Planning." }] },
        { role: "developer", content: "<permissions>read-only</permissions>" },
        { role: "user", content: "Go on." },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: "Base.\n\nSandbox on." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello" },
      { role: "user", content: "<system-reminder>\n<collaboration_mode>plan</collaboration_mode>\n</system-reminder>" },
      { role: "assistant", content: "Planning." },
      { role: "user", content: "<system-reminder>\n<permissions>read-only</permissions>\n</system-reminder>\n\nGo on." },
    ]);
  });

  it("makes the assistant text and the run of parallel calls after it one assistant message, each output a tool message in order", () => {
    const { request } = toHub({
      input: [
        { role: "user", content: "Read a and b." },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading both." }] },
        { type: "function_call", call_id: "call_a", name: "read", arguments: '{"path":"a"}' },
        { type: "function_call", call_id: "call_b", name: "read", arguments: '{"path":"b"}' },
        { type: "function_call_output", call_id: "call_a", output: "A" },
        { type: "function_call_output", call_id: "call_b", output: "B" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: "Read a and b." },
      {
        role: "assistant",
        content: "Reading both.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "call_b", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "A" },
      { role: "tool", tool_call_id: "call_b", content: "B" },
      { role: "assistant", content: "Done." },
    ]);
  });

  it("keeps a tool result's text in the tool message and hoists its images into a user message after the tool messages (table E row 10)", () => {
    const image = { type: "input_image", image_url: "data:image/png;base64,QUJD" };
    const { request } = toHub({
      input: [
        { type: "function_call", call_id: "c1", name: "view_image", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "view_image", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: [text("screenshot"), image] },
        { type: "custom_tool_call_output", call_id: "c2", output: [image, image] },
        { role: "user", content: "What do you see?" },
      ],
    });
    const url = { type: "image_url", image_url: { url: "data:image/png;base64,QUJD" } };
    expect(request.messages.slice(1)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "screenshot\n[image in the next message]" },
      { role: "tool", tool_call_id: "c2", content: "[2 images in the next message]" },
      { role: "user", content: [url, url, url, { type: "text", text: "What do you see?" }] },
    ]);
  });

  it("turns a result whose call is not in the history into user text, since a lone tool message is a 400", () => {
    const { request } = toHub({ input: [{ role: "user", content: "Go" }, { type: "function_call_output", call_id: "gone", output: "late" }] });
    expect(request.messages).toEqual([{ role: "user", content: "Go\n\nOutput of tool call gone:\nlate" }]);
  });

  it("drops what chat cannot express: web_search_call, item_reference, compaction, tool search items, local_shell_call without a local_shell function", () => {
    const { request } = toHub({
      input: [
        { role: "user", content: "Hi" },
        { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "x" } },
        { type: "item_reference", id: "msg_0" },
        { type: "compaction", encrypted_content: "opaque" },
        { type: "tool_search_call", call_id: "s1", execution: "client", arguments: {} },
        { type: "local_shell_call", call_id: "ls1", status: "completed", action: { type: "exec", command: ["ls"] } },
        { type: "local_shell_call_output", call_id: "ls1", output: "a" },
      ],
    });
    expect(request.messages).toEqual([{ role: "user", content: "Hi\n\nOutput of tool call ls1:\na" }]);
  });

  it("keeps a local_shell_call as a call of a declared local_shell function", () => {
    const { request } = toHub({
      tools: [{ type: "function", name: "local_shell", parameters: { type: "object", properties: { command: { type: "array" } } } }],
      input: [
        { type: "local_shell_call", call_id: "ls1", status: "completed", action: { type: "exec", command: ["ls"] } },
        { type: "local_shell_call_output", call_id: "ls1", output: "a" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "ls1", type: "function", function: { name: "local_shell", arguments: '{"type":"exec","command":["ls"]}' } }] },
      { role: "tool", tool_call_id: "ls1", content: "a" },
    ]);
  });

  it("shortens a call id longer than 64 characters the same way in the call and its output (table E row 27)", () => {
    const long = `call_${"x".repeat(80)}`;
    const { request } = toHub({
      input: [
        { type: "function_call", call_id: long, name: "read", arguments: "{}" },
        { type: "function_call_output", call_id: long, output: "ok" },
      ],
    });
    const id = (request.messages[0] as { tool_calls: { id: string }[] }).tool_calls[0]!.id;
    expect(id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(request.messages[1]).toEqual({ role: "tool", tool_call_id: id, content: "ok" });
  });

  it("replays only reasoning the gateway sealed, under the field it came from, on the next assistant message", () => {
    const { request } = toHub({
      input: [
        { role: "user", content: "Hi" },
        { type: "reasoning", summary: [{ type: "summary_text", text: "openai" }], encrypted_content: "gAAAA-openai-own" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "One" }] },
        { role: "user", content: "Again" },
        { type: "reasoning", summary: [], encrypted_content: testSeal.seal("first", "reasoning") },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me check." }] },
        { type: "reasoning", summary: [], encrypted_content: testSeal.seal("second", "reasoning") },
        { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
      ],
    });
    expect(request.messages.slice(1)).toEqual([
      { role: "assistant", content: "One" },
      { role: "user", content: "Again" },
      { role: "assistant", content: "Let me check.", tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }], reasoning: "first\n\nsecond" },
    ]);
  });

  it("reads another Codex agent's message as user input with its author", () => {
    const { request } = toHub({ input: [{ type: "agent_message", author: "/root/reviewer", recipient: "/root", content: [text("Looks good.")] }] });
    expect(request.messages).toEqual([{ role: "user", content: "Message from /root/reviewer:\n\nLooks good." }]);
  });
});
