import OpenAI from "openai";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator.mjs";
import { describe, expect, it } from "vitest";
import type { HubChunk, Json } from "../src/translate/hub.js";
import { responsesClient } from "../src/translate/responses/index.js";
import type { ClientEvent, HubStreamItem, ReplyHints, TranslateContext } from "../src/translate/types.js";
import { encodeEvents } from "../src/sse/sse.js";
import { deltaItem, hubReply, testContext, testSeal, usageItem } from "./helpers/translate.js";

// ---------------------------------------------------------------------------------------------------------------
// Fixtures: what Codex sends (shapes from codex-rs: ResponseItem, the code-mode `exec` tool, Codex 0.169 and 0.45)
// ---------------------------------------------------------------------------------------------------------------

/** Codex's code-mode `exec` grammar (codex-rs `create_code_mode_tool`). */
const EXEC_GRAMMAR = "\nstart: pragma_source | plain_source\npragma_source: PRAGMA_LINE NEWLINE SOURCE\nplain_source: SOURCE\n\nPRAGMA_LINE: /[ \\t]*\\/\\/ @exec:[^\\r\\n]*/\nNEWLINE: /\\r?\\n/\nSOURCE: /[\\s\\S]+/\n";

/** Codex's `apply_patch` grammar (codex-rs `tool_apply_patch.lark`), declared by Codex 0.45 as a freeform tool. */
const PATCH_GRAMMAR = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;

const INPUT_PARAMETERS = {
  type: "object",
  properties: { input: { type: "string", description: "The whole input for this tool, as plain text (not JSON)." } },
  required: ["input"],
  additionalProperties: false,
};

const EXEC_DESCRIPTION = "Run JavaScript that orchestrates tools: `await tools.exec_command({cmd})`, `await tools.apply_patch(patch)`.";
const WAIT_PARAMETERS = { type: "object", properties: { cell_id: { type: "string" } }, required: ["cell_id"], additionalProperties: false };
const EXEC_CODE = 'const r = await tools.exec_command({cmd: "ls"});\ntext(r.output);';

const text = (value: string) => ({ type: "input_text", text: value });

/** Codex 0.169 with its default models ("code mode"): no top-level tools, an `additional_tools` item instead. */
function codeModeRequest(history: Json[] = []): Json {
  return {
    model: "gpt-5.6-codex",
    instructions: "You are Codex, a coding agent.",
    input: [
      {
        type: "additional_tools",
        role: "developer",
        tools: [
          {
            type: "namespace",
            name: "functions",
            description: "Local tools",
            tools: [
              { type: "custom", name: "exec", description: EXEC_DESCRIPTION, format: { type: "grammar", syntax: "lark", definition: EXEC_GRAMMAR } },
              { type: "function", name: "wait", description: "Waits on a yielded exec cell.", strict: false, parameters: WAIT_PARAMETERS },
            ],
          },
        ],
      },
      { type: "message", role: "developer", content: [text("<permissions instructions>sandbox: workspace-write</permissions instructions>")] },
      { type: "message", role: "user", content: [text("# AGENTS.md instructions\nUse pnpm.")] },
      { type: "message", role: "user", content: [text("<environment_context><cwd>/repo</cwd></environment_context>")] },
      { type: "message", role: "user", content: [text("List the files.")] },
      ...history,
    ],
    tool_choice: "auto",
    parallel_tool_calls: true,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "019a2b3c-session",
    text: { verbosity: "low" },
    client_metadata: { ws_request_header_x_openai_internal_codex_responses_lite: "true" },
  };
}

const execTool = {
  type: "function",
  function: {
    name: "functions__exec",
    description: `${EXEC_DESCRIPTION}\n\nThis tool takes freeform text, not JSON: put the whole text in the \`input\` string.\n\nThe text must match this lark grammar:\n${EXEC_GRAMMAR.trim()}`,
    parameters: INPUT_PARAMETERS,
  },
};
const waitTool = { type: "function", function: { name: "functions__wait", description: "Waits on a yielded exec cell.", parameters: WAIT_PARAMETERS } };

const EXEC_COMMAND_PARAMETERS = {
  type: "object",
  properties: { cmd: { type: "string", description: "Shell command to execute." }, workdir: { type: "string" } },
  required: ["cmd"],
  additionalProperties: false,
};

/** Codex 0.169 with another model: top-level function, a namespace, a hosted tool; `function_call_output.output` a string. */
function topLevelRequest(history: Json[] = []): Json {
  return {
    model: "qwen3-coder",
    instructions: "You are Codex, a coding agent.",
    input: [{ type: "message", role: "user", content: [text("Run the tests.")] }, ...history],
    tools: [
      { type: "function", name: "exec_command", description: "Runs a command.", strict: false, parameters: EXEC_COMMAND_PARAMETERS },
      {
        type: "namespace",
        name: "multi_agent_v1",
        description: "Sub-agents",
        tools: [{ type: "function", name: "spawn_agent", description: "Starts an agent.", strict: false, parameters: { type: "object", properties: { task: { type: "string" } } } }],
      },
      { type: "web_search", external_web_access: false },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "high", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "019a2b3c-session",
    text: { verbosity: "medium" },
  };
}

/** Codex 0.45: `shell` as a function and `apply_patch` as a freeform tool with its grammar, all at the top level. */
function codex045Request(history: Json[] = []): Json {
  return {
    model: "gpt-5-codex",
    instructions: "You are Codex.",
    input: [{ type: "message", role: "user", content: [text("Fix the typo in a.txt.")] }, ...history],
    tools: [
      {
        type: "function",
        name: "shell",
        description: "Runs a shell command and returns its output.",
        strict: false,
        parameters: { type: "object", properties: { command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } }, required: ["command"], additionalProperties: false },
      },
      { type: "custom", name: "apply_patch", description: "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.", format: { type: "grammar", syntax: "lark", definition: PATCH_GRAMMAR } },
      { type: "local_shell" },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "minimal", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "0199-session",
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

const toHub = (body: Json, ctx: TranslateContext = testContext()) => responsesClient.toHub(body, ctx);

/** A chunk holding tool-call pieces (any field may be left out, as upstreams do). */
function toolChunk(pieces: NonNullable<HubChunk["choices"][number]["delta"]["tool_calls"]>, finish: string | null = null): HubStreamItem {
  return deltaItem({ tool_calls: pieces }, finish);
}

/** Every event a stream sends for a script of hub items, `start()` to `finish()`. */
function runStream(items: HubStreamItem[], hints: ReplyHints = {}, ctx = testContext()): ClientEvent[] {
  const stream = responsesClient.streamFromHub(hints, ctx);
  return [...stream.start(), ...items.flatMap((item) => stream.push(item)), ...stream.finish()];
}

const types = (events: ClientEvent[]) => events.map((event) => (event.data as { type: string }).type);
const data = (events: ClientEvent[], type: string) => events.filter((event) => event.event === type).map((event) => event.data as Json);
const completed = (events: ClientEvent[]) => (events.at(-1)!.data as { response: Json }).response;

/** A deep copy with every `created_at` set to 0 (timestamps may differ by a second between two runs). */
function stamped<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, entry: unknown) => (key === "created_at" ? 0 : entry)) as T;
}

/** An OpenAI SDK client whose transport answers with `body`. */
function sdkAnswering(body: string, contentType: string): OpenAI {
  return new OpenAI({ apiKey: "test", baseURL: "http://gateway.test/v1", fetch: async () => new Response(body, { headers: { "content-type": contentType } }) });
}

/** Removes what the SDK adds while parsing (`output_parsed`, `parsed_arguments`, `parsed`), to compare with the wire body. */
function unparsed(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, entry: unknown) => (key === "output_parsed" || key === "parsed_arguments" || key === "parsed" ? undefined : entry));
}

const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 5 } };
const responseUsage = { input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 5 }, total_tokens: 120 };

// ---------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------

describe("responses requests: what Codex sends", () => {
  it("declares code mode's additional_tools (the exec freeform tool, the wait function) and merges the system and user texts", () => {
    const { request, hints } = toHub(codeModeRequest());
    expect(request).toEqual({
      model: "upstream-model",
      messages: [
        { role: "system", content: "You are Codex, a coding agent.\n\n<permissions instructions>sandbox: workspace-write</permissions instructions>" },
        { role: "user", content: "# AGENTS.md instructions\nUse pnpm.\n\n<environment_context><cwd>/repo</cwd></environment_context>\n\nList the files." },
      ],
      stream: true,
      tools: [execTool, waitTool],
      tool_choice: "auto",
      parallel_tool_calls: true,
      reasoning_effort: "medium",
    });
    expect([...hints.toolNames!]).toEqual([
      ["functions__exec", { name: "exec", namespace: "functions", custom: true }],
      ["functions__wait", { name: "wait", namespace: "functions", custom: false }],
    ]);
  });

  it("sends an exec round trip back: the custom call as a tool call wrapping its input, the input_text parts of its output as the tool message", () => {
    const envelope = testSeal.seal("I should list the files.", "reasoning_content");
    const { request } = toHub(
      codeModeRequest([
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "I should list the files." }], encrypted_content: envelope },
        { type: "custom_tool_call", id: "ctc_1", status: "completed", call_id: "call_1", name: "exec", namespace: "functions", input: EXEC_CODE },
        { type: "custom_tool_call_output", call_id: "call_1", output: [text("Script completed"), text("README.md\nsrc")] },
      ]),
    );
    expect(request.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } }],
        reasoning_content: "I should list the files.",
      },
      { role: "tool", tool_call_id: "call_1", content: "Script completed\nREADME.md\nsrc" },
    ]);
  });

  it("declares another model's top-level function and namespace, drops web_search, and replays a string function output", () => {
    const { request, hints } = toHub(
      topLevelRequest([
        { type: "function_call", id: "fc_1", call_id: "call_9", name: "exec_command", arguments: '{"cmd":"npm test"}' },
        { type: "function_call_output", call_id: "call_9", output: "2 passing" },
      ]),
    );
    expect(request).toEqual({
      model: "upstream-model",
      messages: [
        { role: "system", content: "You are Codex, a coding agent." },
        { role: "user", content: "Run the tests." },
        { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "exec_command", arguments: '{"cmd":"npm test"}' } }] },
        { role: "tool", tool_call_id: "call_9", content: "2 passing" },
      ],
      stream: true,
      tools: [
        { type: "function", function: { name: "exec_command", description: "Runs a command.", parameters: EXEC_COMMAND_PARAMETERS } },
        { type: "function", function: { name: "multi_agent_v1__spawn_agent", description: "Starts an agent.", parameters: { type: "object", properties: { task: { type: "string" } } } } },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
      reasoning_effort: "high",
    });
    expect(hints.toolNames!.get("multi_agent_v1__spawn_agent")).toEqual({ name: "spawn_agent", namespace: "multi_agent_v1", custom: false });
  });

  it("declares Codex 0.45's apply_patch freeform tool with its grammar and drops local_shell", () => {
    const { request } = toHub(codex045Request());
    expect(request.tools!.map((tool) => tool.function.name)).toEqual(["shell", "apply_patch"]);
    expect(request.tools![1]).toEqual({
      type: "function",
      function: {
        name: "apply_patch",
        description: `Use the \`apply_patch\` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.\n\nThis tool takes freeform text, not JSON: put the whole text in the \`input\` string.\n\nThe text must match this lark grammar:\n${PATCH_GRAMMAR.trim()}`,
        parameters: INPUT_PARAMETERS,
      },
    });
    expect(request.reasoning_effort).toBe("low");
  });

  it("names a grammar too long to copy instead of copying it", () => {
    const definition = `start: x\n${"x: /a/\n".repeat(1000)}`;
    const { request } = toHub({ input: "hi", tools: [{ type: "custom", name: "big", format: { type: "grammar", syntax: "lark", definition } }] });
    expect(request.tools![0]!.function.description).toBe(
      "This tool takes freeform text, not JSON: put the whole text in the `input` string.\n\nThe text must follow the format the tool describes (a lark grammar).",
    );
  });

  it("keeps a function-style apply_patch (Codex's other declaration) a plain function", () => {
    const tools = [{ type: "function", name: "apply_patch", description: "Edit files.", parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"] } }];
    const { request, hints } = toHub({ input: "hi", tools });
    expect(request.tools).toEqual([{ type: "function", function: { name: "apply_patch", description: "Edit files.", parameters: tools[0]!.parameters } }]);
    expect(hints.toolNames!.get("apply_patch")).toEqual({ name: "apply_patch", namespace: undefined, custom: false });
  });
});

describe("responses requests: messages and items", () => {
  it("makes a string input one user message and leaves out every field chat has no word for", () => {
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
    expect(request).toEqual({ model: "upstream-model", messages: [{ role: "user", content: "Hello" }] });
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

  it("keeps system text first: a developer message sent mid-conversation becomes user text at its place (Qwen and llama.cpp templates reject a late system message)", () => {
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
      { role: "user", content: "<collaboration_mode>plan</collaboration_mode>" },
      { role: "assistant", content: "Planning." },
      { role: "user", content: "<permissions>read-only</permissions>\n\nGo on." },
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

describe("responses requests: tools and tool choice", () => {
  it("drops hosted tools, strict and $schema, and gives a schemaless function an object schema", () => {
    const { request } = toHub({
      input: "Hi",
      tools: [
        { type: "web_search_preview" },
        { type: "image_generation" },
        { type: "computer_use_preview", display_width: 1 },
        { type: "file_search", vector_store_ids: [] },
        { type: "mcp", server_label: "x" },
        { type: "function", name: "a", strict: true, parameters: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} } },
        { type: "function", name: "b" },
        { type: "function", name: "c", parameters: { properties: { x: { type: "string" } } } },
      ],
    });
    expect(request.tools).toEqual([
      { type: "function", function: { name: "a", parameters: { type: "object", properties: {} } } },
      { type: "function", function: { name: "b", parameters: { type: "object", properties: {} } } },
      { type: "function", function: { name: "c", parameters: { type: "object", properties: { x: { type: "string" } } } } },
    ]);
  });

  it("gives names chat refuses (a dot, more than 64 characters) a valid hashed form that maps back", () => {
    const longNamespace = `mcp__${"very_long_server_name_".repeat(3)}`;
    const { request, hints } = toHub({
      input: "Hi",
      tools: [
        { type: "function", name: "mcp.docs.search" },
        { type: "namespace", name: longNamespace, tools: [{ type: "function", name: "search_documents" }] },
      ],
    });
    const [dotted, long] = request.tools!.map((tool) => tool.function.name);
    expect(dotted).toMatch(/^mcp_docs_search_[0-9a-f]{8}$/);
    expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(hints.toolNames!.get(dotted!)).toEqual({ name: "mcp.docs.search", namespace: undefined, custom: false });
    expect(hints.toolNames!.get(long!)).toEqual({ name: "search_documents", namespace: longNamespace, custom: false });
  });

  it("keeps two tools that would share a chat name apart", () => {
    const { request, hints } = toHub({
      input: "Hi",
      tools: [{ type: "function", name: "a__b" }, { type: "namespace", name: "a", tools: [{ type: "function", name: "b" }] }],
    });
    const names = request.tools!.map((tool) => tool.function.name);
    expect(names[0]).toBe("a__b");
    expect(names[1]).not.toBe("a__b");
    expect(hints.toolNames!.get(names[1]!)).toEqual({ name: "b", namespace: "a", custom: false });
  });

  it.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    [{ type: "function", name: "read" }, { type: "function", function: { name: "read" } }],
    [{ type: "custom", name: "apply_patch" }, { type: "function", function: { name: "apply_patch" } }],
    [{ type: "function", name: "spawn_agent", namespace: "agents" }, { type: "function", function: { name: "agents__spawn_agent" } }],
    [{ type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "read" }] }, "auto"],
    [{ type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "read" }] }, "required"],
    [{ type: "function", name: "undeclared" }, undefined],
    [{ type: "web_search_preview" }, undefined],
  ])("maps tool_choice %j to %j", (choice, expected) => {
    const tools = [
      { type: "function", name: "read" },
      { type: "custom", name: "apply_patch" },
      { type: "namespace", name: "agents", tools: [{ type: "function", name: "spawn_agent" }] },
    ];
    expect(toHub({ input: "Hi", tools, tool_choice: choice }).request.tool_choice).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------------------------

function envelopeOf(overrides: Json): Json {
  return {
    id: "resp_1",
    object: "response",
    created_at: 0,
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: "client-model",
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: null,
    store: false,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    truncation: "disabled",
    usage: responseUsage,
    metadata: {},
    ...overrides,
  };
}

describe("responses replies", () => {
  it("answers reasoning, text and a function call as items, with usage counted the Responses way", () => {
    const { hints } = toHub(topLevelRequest());
    const reply = hubReply(
      { role: "assistant", content: "Running them.", reasoning_content: "Tests first.", tool_calls: [{ id: "call_1", type: "function", function: { name: "exec_command", arguments: '{"cmd":"npm test"}' } }] },
      "tool_calls",
      usage,
    );
    expect(stamped(responsesClient.replyFromHub(reply, hints, testContext()))).toEqual(
      envelopeOf({
        parallel_tool_calls: false,
        reasoning: { effort: "high", summary: "auto" },
        output: [
          { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Tests first." }], encrypted_content: testSeal.seal("Tests first.", "reasoning_content") },
          { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Running them.", annotations: [] }] },
          { id: "fc_1", type: "function_call", status: "completed", arguments: '{"cmd":"npm test"}', call_id: "call_1", name: "exec_command" },
        ],
      }),
    );
  });

  it("sends a freeform tool's call back as a custom_tool_call whose input is the unwrapped string, namespaced as declared (table E row 19)", () => {
    const { hints } = toHub(codeModeRequest());
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "call_7", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } }] }, "tool_calls", usage);
    expect(stamped(responsesClient.replyFromHub(reply, hints, testContext()))).toEqual(
      envelopeOf({
        reasoning: { effort: "medium", summary: "auto" },
        output: [{ id: "ctc_1", type: "custom_tool_call", status: "completed", call_id: "call_7", name: "exec", namespace: "functions", input: EXEC_CODE }],
      }),
    );
  });

  it.each([
    ["the input key", JSON.stringify({ input: "*** Begin Patch\n*** End Patch\n" }), "*** Begin Patch\n*** End Patch\n"],
    ["another single key", JSON.stringify({ patch: "*** Begin Patch\n*** End Patch\n" }), "*** Begin Patch\n*** End Patch\n"],
    ["broken JSON with a raw newline", '{"input": "*** Begin Patch\n*** End Patch\n"', "*** Begin Patch\n*** End Patch\n"],
    ["the patch sent bare", "*** Begin Patch\n*** End Patch", "*** Begin Patch\n*** End Patch"],
  ])("reads apply_patch's input from %s", (_case, args, input) => {
    const { hints } = toHub(codex045Request());
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "call_p", type: "function", function: { name: "apply_patch", arguments: args } }] }, "tool_calls");
    const output = (responsesClient.replyFromHub(reply, hints, testContext()) as { output: Json[] }).output;
    expect(output).toEqual([{ id: "ctc_1", type: "custom_tool_call", status: "completed", call_id: "call_p", name: "apply_patch", input }]);
  });

  it.each([
    ["a missing brace", '{"path":"a"', '{"path":"a"}'],
    ["a trailing comma", '{"path":"a",}', '{"path":"a"}'],
    ["no arguments at all", "", "{}"],
    ["valid JSON, kept byte for byte", '{ "b": 1, "a": 2 }', '{ "b": 1, "a": 2 }'],
    ["text beyond repair, kept as it came", "not json at all", "not json at all"],
  ])("repairs a function call's arguments with %s (table E row 24)", (_case, args, expected) => {
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: args } }] }, "tool_calls");
    expect((responsesClient.replyFromHub(reply, {}, testContext()) as { output: Json[] }).output[0]!.arguments).toBe(expected);
  });

  it("names a namespaced function by its member name and namespace, as codex-rs ResponseItem::FunctionCall reads it", () => {
    const { hints } = toHub(topLevelRequest());
    const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "multi_agent_v1__spawn_agent", arguments: '{"task":"x"}' } }] }, "tool_calls");
    expect((responsesClient.replyFromHub(reply, hints, testContext()) as { output: Json[] }).output).toEqual([
      { id: "fc_1", type: "function_call", status: "completed", arguments: '{"task":"x"}', call_id: "c", name: "spawn_agent", namespace: "multi_agent_v1" },
    ]);
  });

  it.each([
    ["length", "incomplete", { reason: "max_output_tokens" }],
    ["content_filter", "incomplete", { reason: "content_filter" }],
    ["stop", "completed", null],
  ])("reports finish_reason %s as status %s", (finish, status, details) => {
    const reply = responsesClient.replyFromHub(hubReply({ role: "assistant", content: "Partial" }, finish), {}, testContext()) as Json;
    expect([reply.status, reply.incomplete_details]).toEqual([status, details]);
  });

  it("completes a reply that holds a tool call even when the upstream said stop or length (table E row 6)", () => {
    for (const finish of ["stop", "length"]) {
      const reply = hubReply({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: "{}" } }] }, finish);
      expect((responsesClient.replyFromHub(reply, {}, testContext()) as Json).status).toBe("completed");
    }
  });

  it("holds no empty message item when the upstream sent empty content (table E row 7), and zero usage when none came", () => {
    const reply = hubReply({ role: "assistant", content: "", tool_calls: [{ id: "c", type: "function", function: { name: "read", arguments: "{}" } }] }, "tool_calls");
    const body = responsesClient.replyFromHub(reply, {}, testContext()) as { output: Json[]; usage: Json };
    expect(body.output.map((item) => item.type)).toEqual(["function_call"]);
    expect(body.usage).toEqual({ input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 });
  });

  it("gives a reasoning-only answer (DeepSeek V4-flash) a message too, or `codex exec` prints nothing", () => {
    const body = responsesClient.replyFromHub(hubReply({ content: "", reasoning_content: "It is 4." }), {}, testContext()) as { output: Json[] };
    expect(body.output.map((item) => [item.type, item.type === "message" ? (item.content as Json[])[0]!.text : (item.summary as Json[])[0]!.text])).toEqual([
      ["reasoning", "It is 4."],
      ["message", "It is 4."],
    ]);
  });

  it("seals reasoning so the next request gives it back to the upstream under the same field", () => {
    const reply = hubReply({ role: "assistant", content: "Hi", reasoning: "Because." }, "stop");
    const body = responsesClient.replyFromHub(reply, {}, testContext()) as { output: Json[] };
    const { request } = toHub({ input: [{ role: "user", content: "Hi" }, ...body.output, { role: "user", content: "More" }] });
    expect(request.messages[1]).toEqual({ role: "assistant", content: "Hi", reasoning: "Because." });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------------------------------------

/** Reasoning, text, a function call streamed in pieces, the finish chunk, then the usage chunk after it. */
const canonicalScript = (): HubStreamItem[] => [
  deltaItem({ role: "assistant", reasoning_content: "Think" }),
  deltaItem({ reasoning_content: "ing." }),
  deltaItem({ content: "Let me look." }),
  toolChunk([{ index: 0, id: "call_a", type: "function", function: { name: "exec_command", arguments: "" } }]),
  toolChunk([{ index: 0, function: { arguments: '{"cmd":' } }]),
  toolChunk([{ index: 0, function: { arguments: '"ls"}' } }]),
  deltaItem({}, "tool_calls"),
  usageItem(usage),
];

describe("responses streams: the event sequence", () => {
  it("sends research C2's canonical sequence, numbered from 0, with the usage that came after the finish chunk (table E row 1)", () => {
    const events = stamped(runStream(canonicalScript()));
    const opening = envelopeOf({ status: "in_progress", usage: null });
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: testSeal.seal("Thinking.", "reasoning_content") };
    const message = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Let me look.", annotations: [] }] };
    const call = { id: "fc_1", type: "function_call", status: "completed", arguments: '{"cmd":"ls"}', call_id: "call_a", name: "exec_command" };
    const rs = { item_id: "rs_1", output_index: 0, summary_index: 0 };
    const msg = { item_id: "msg_1", output_index: 1, content_index: 0 };
    const fc = { item_id: "fc_1", output_index: 2 };
    const expected: [string, Json][] = [
      ["response.created", { response: opening }],
      ["response.in_progress", { response: opening }],
      ["response.output_item.added", { output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } }],
      ["response.reasoning_summary_part.added", { ...rs, part: { type: "summary_text", text: "" } }],
      ["response.reasoning_summary_text.delta", { ...rs, delta: "Think" }],
      ["response.reasoning_summary_text.delta", { ...rs, delta: "ing." }],
      ["response.reasoning_summary_text.done", { ...rs, text: "Thinking." }],
      ["response.reasoning_summary_part.done", { ...rs, part: { type: "summary_text", text: "Thinking." } }],
      ["response.output_item.done", { output_index: 0, item: reasoning }],
      ["response.output_item.added", { output_index: 1, item: { ...message, status: "in_progress", content: [] } }],
      ["response.content_part.added", { ...msg, part: { type: "output_text", text: "", annotations: [] } }],
      ["response.output_text.delta", { ...msg, delta: "Let me look.", logprobs: [] }],
      ["response.output_text.done", { ...msg, text: "Let me look.", logprobs: [] }],
      ["response.content_part.done", { ...msg, part: { type: "output_text", text: "Let me look.", annotations: [] } }],
      ["response.output_item.done", { output_index: 1, item: message }],
      ["response.output_item.added", { output_index: 2, item: { ...call, status: "in_progress", arguments: "" } }],
      ["response.function_call_arguments.delta", { ...fc, delta: '{"cmd":' }],
      ["response.function_call_arguments.delta", { ...fc, delta: '"ls"}' }],
      ["response.function_call_arguments.done", { ...fc, name: "exec_command", arguments: '{"cmd":"ls"}' }],
      ["response.output_item.done", { output_index: 2, item: call }],
      ["response.completed", { response: envelopeOf({ output: [reasoning, message, call] }) }],
    ];
    expect(events).toEqual(expected.map(([type, fields], n) => ({ event: type, data: { type, sequence_number: n, ...fields } })));
  });

  it("sends each event as soon as the chunk that completes it arrives, and holds response.completed until the end", () => {
    const stream = responsesClient.streamFromHub({}, testContext());
    expect(types(stream.start())).toEqual(["response.created", "response.in_progress"]);
    expect(types(stream.push(deltaItem({ content: "Hel" })))).toEqual(["response.output_item.added", "response.content_part.added", "response.output_text.delta"]);
    expect(types(stream.push(deltaItem({ content: "lo" })))).toEqual(["response.output_text.delta"]);
    expect(types(stream.push(deltaItem({}, "stop")))).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done"]);
    expect(stream.push(usageItem(usage))).toEqual([]);
    expect(types(stream.finish())).toEqual(["response.completed"]);
    expect(stream.finish()).toEqual([]);
  });

  it("opens with response.created when push comes first, and start() after that sends nothing", () => {
    const stream = responsesClient.streamFromHub({}, testContext());
    expect(types(stream.push(deltaItem({ content: "Hi" })))).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added", "response.output_text.delta"]);
    expect(stream.start()).toEqual([]);
  });

  it("closes every item before the next opens, text -> tool -> text included (table E row 2)", () => {
    const events = runStream([
      deltaItem({ content: "A" }),
      toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: "{}" } }]),
      deltaItem({ content: "B" }),
      deltaItem({ reasoning_content: "hmm" }),
      deltaItem({ content: "C" }, "stop"),
    ]);
    const items = events.filter((event) => event.event === "response.output_item.added" || event.event === "response.output_item.done");
    expect(items.map((event) => `${event.event === "response.output_item.added" ? "+" : "-"}${(event.data as { output_index: number }).output_index}`)).toEqual(["+0", "-0", "+1", "-1", "+2", "-2", "+3", "-3", "+4", "-4"]);
    expect((completed(events).output as Json[]).map((item) => item.type)).toEqual(["message", "function_call", "message", "reasoning", "message"]);
    expect(types(events).map((_, n) => (events[n]!.data as { sequence_number: number }).sequence_number)).toEqual(events.map((_, n) => n));
  });

  it("ends a stream with no finish reason and no [DONE] by the grammar, and an empty one too", () => {
    expect(types(runStream([deltaItem({ content: "cut" })])).slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    const empty = runStream([]);
    expect(types(empty)).toEqual(["response.created", "response.in_progress", "response.completed"]);
    expect(completed(empty)).toMatchObject({ status: "completed", output: [] });
  });

  it("ends a stream cut by length with response.completed whose status is incomplete", () => {
    const events = runStream([deltaItem({ content: "Partial" }), deltaItem({}, "length"), usageItem(usage)]);
    expect(types(events).at(-1)).toBe("response.completed");
    expect(completed(events)).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: responseUsage });
  });

  it("completes when a tool call was streamed even if the upstream finished with stop (table E row 6), and with no item when tool_calls came without a call", () => {
    const withCall = runStream([toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: "{}" } }]), deltaItem({}, "stop")]);
    expect(completed(withCall).status).toBe("completed");
    const withoutCall = runStream([deltaItem({}, "tool_calls")]);
    expect(completed(withoutCall)).toMatchObject({ status: "completed", output: [] });
  });

  it("closes a reasoning-only answer with a message holding the reasoning, as the whole reply has", () => {
    const events = runStream([deltaItem({ role: "assistant", content: "" }), deltaItem({ reasoning_content: "It is " }), deltaItem({ reasoning_content: "4." }), deltaItem({}, "stop")]);
    const output = completed(events).output as Json[];
    expect(output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(output[1]).toMatchObject({ content: [{ type: "output_text", text: "It is 4." }] });
    expect(types(events).slice(-8)).toEqual([
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
  });

  it("never opens an item for empty or placeholder text and reasoning (table E row 7)", () => {
    const events = runStream([deltaItem({ role: "assistant", content: "" }), deltaItem({ reasoning_content: "" }), deltaItem({ content: null, reasoning: null }), deltaItem({}, "stop")]);
    expect(types(events)).toEqual(["response.created", "response.in_progress", "response.completed"]);
  });

  it("answers keepAlive with the API's own keepalive event, numbered in sequence, and nothing after the end (table E row 15)", () => {
    const stream = responsesClient.streamFromHub({}, testContext());
    expect(stream.keepAlive()).toEqual([
      expect.objectContaining({ event: "response.created" }),
      expect.objectContaining({ event: "response.in_progress" }),
      { event: "keepalive", data: { type: "keepalive", sequence_number: 2 } },
    ]);
    expect(stream.keepAlive()).toEqual([{ event: "keepalive", data: { type: "keepalive", sequence_number: 3 } }]);
    stream.finish();
    expect(stream.keepAlive()).toEqual([]);
  });
});

describe("responses streams: tool-call chunk shapes (research B2)", () => {
  const callArgs = (events: ClientEvent[]) => (completed(events).output as Json[]).map((item) => [item.call_id, item.name, item.arguments]);

  it("reads a whole call in one chunk (Ollama) as one argument delta", () => {
    const events = runStream([toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }], "tool_calls")]);
    expect(data(events, "response.function_call_arguments.delta").map((event) => event.delta)).toEqual(['{"path":"a"}']);
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("reads an id repeated on every piece (LiteLLM, SGLang) as one call, its arguments once (table E row 3)", () => {
    const events = runStream([
      toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"pa' } }]),
      toolChunk([{ index: 0, id: "call_1", type: "function", function: { arguments: 'th":"a"}' } }]),
      toolChunk([{ index: 0, id: "call_1", function: { arguments: '{"path":"a"}' } }], "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("reads a second call on index 0 with a new id (lmdeploy, SGLang) as a second item: parallel calls stay apart (table E row 4)", () => {
    const events = runStream([
      toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }]),
      toolChunk([{ index: 0, id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"b"}' } }]),
      deltaItem({}, "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([
      ["call_1", "read", '{"path":"a"}'],
      ["call_2", "read", '{"path":"b"}'],
    ]);
    expect((completed(events).output as Json[]).map((item) => item.id)).toEqual(["fc_1", "fc_2"]);
  });

  it("reads the same call sent at several indexes (LocalAI) and two pieces for one index in one chunk as one call", () => {
    const events = runStream([
      toolChunk([
        { index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"pa' } },
        { index: 0, function: { arguments: 'th":"a"}' } },
      ]),
      toolChunk([{ index: 1, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }], "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("makes up an id when the upstream never sends one (vLLM) and waits for the name before opening the item (table E row 5)", () => {
    const events = runStream([toolChunk([{ index: 0, function: { arguments: '{"path":' } }]), toolChunk([{ index: 0, function: { name: "read", arguments: '"a"}' } }]), deltaItem({}, "tool_calls")]);
    const added = data(events, "response.output_item.added");
    expect(added).toHaveLength(1);
    expect(added[0]!.item).toMatchObject({ name: "read", call_id: "call_1" });
    expect(callArgs(events)).toEqual([["call_1", "read", '{"path":"a"}']]);
  });

  it("turns arguments sent as an object (zai-proxy) into JSON text", () => {
    const events = runStream([toolChunk([{ index: 0, id: "c", type: "function", function: { name: "read", arguments: { path: "a" } } }], "tool_calls")]);
    expect(callArgs(events)).toEqual([["c", "read", '{"path":"a"}']]);
  });

  it("streams broken arguments as they came but gives the repaired ones in the done events, which Codex reads", () => {
    const events = runStream([toolChunk([{ index: 0, id: "c", type: "function", function: { name: "read", arguments: '{"path":"a"' } }], "tool_calls")]);
    expect(data(events, "response.function_call_arguments.delta").map((event) => event.delta)).toEqual(['{"path":"a"']);
    expect(data(events, "response.function_call_arguments.done")[0]!.arguments).toBe('{"path":"a"}');
    expect(callArgs(events)).toEqual([["c", "read", '{"path":"a"}']]);
  });

  it("keeps interleaved parallel calls whole: the second waits until the first's arguments are complete", () => {
    const events = runStream([
      toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"path":' } }]),
      toolChunk([{ index: 1, id: "c2", type: "function", function: { name: "read", arguments: '{"path":' } }]),
      toolChunk([{ index: 0, function: { arguments: '"a"}' } }]),
      toolChunk([{ index: 1, function: { arguments: '"b"}' } }]),
      deltaItem({}, "tool_calls"),
    ]);
    expect(callArgs(events)).toEqual([
      ["c1", "read", '{"path":"a"}'],
      ["c2", "read", '{"path":"b"}'],
    ]);
    expect(data(events, "response.function_call_arguments.delta").map((event) => [event.item_id, event.delta])).toEqual([
      ["fc_1", '{"path":'],
      ["fc_1", '"a"}'],
      ["fc_2", '{"path":'],
      ["fc_2", '"b"}'],
    ]);
  });

  it("streams a freeform tool's call as a custom_tool_call item with its input delta and done", () => {
    const { hints } = toHub(codeModeRequest());
    const args = JSON.stringify({ input: EXEC_CODE });
    const events = stamped(
      runStream(
        [toolChunk([{ index: 0, id: "call_x", type: "function", function: { name: "functions__exec", arguments: args.slice(0, 10) } }]), toolChunk([{ index: 0, function: { arguments: args.slice(10) } }]), deltaItem({}, "tool_calls")],
        hints,
      ),
    );
    const item = { id: "ctc_1", type: "custom_tool_call", status: "completed", call_id: "call_x", name: "exec", namespace: "functions", input: EXEC_CODE };
    expect(events.slice(2, -1).map((event) => event.data)).toEqual([
      { type: "response.output_item.added", sequence_number: 2, output_index: 0, item: { ...item, status: "in_progress", input: "" } },
      { type: "response.custom_tool_call_input.delta", sequence_number: 3, item_id: "ctc_1", output_index: 0, delta: EXEC_CODE },
      { type: "response.custom_tool_call_input.done", sequence_number: 4, item_id: "ctc_1", output_index: 0, input: EXEC_CODE },
      { type: "response.output_item.done", sequence_number: 5, output_index: 0, item },
    ]);
  });
});

describe("responses streams: failures", () => {
  it("fails before anything was sent with response.created, response.in_progress, then response.failed and nothing after (table E rows 16, 17)", () => {
    const stream = responsesClient.streamFromHub({}, testContext());
    const events = stamped(stream.fail({ status: 502, type: "api_error", message: "upstream closed", param: null, code: "upstream_error" }));
    expect(types(events)).toEqual(["response.created", "response.in_progress", "response.failed"]);
    expect(events[2]!.data).toEqual({
      type: "response.failed",
      sequence_number: 2,
      response: envelopeOf({ status: "failed", usage: null, error: { code: "server_error", message: "upstream closed" } }),
    });
    expect([...stream.push(deltaItem({ content: "late" })), ...stream.finish(), ...stream.keepAlive(), ...stream.fail(events[2] as never)]).toEqual([]);
  });

  it("leaves a half-streamed call out of a failed response, so Codex never runs it", () => {
    const stream = responsesClient.streamFromHub({}, testContext());
    stream.push(deltaItem({ content: "Reading." }));
    stream.push(toolChunk([{ index: 0, id: "c1", type: "function", function: { name: "read", arguments: '{"pa' } }]));
    const events = stream.push({ type: "error", error: { status: 502, type: "api_error", message: "boom", param: null, code: null } });
    expect(types(events)).toEqual(["response.failed"]);
    const response = (events[0]!.data as { response: { output: Json[] } }).response;
    expect(response.output.map((item) => item.type)).toEqual(["message"]);
  });

  it.each([
    [400, "This model's maximum context length is 8192 tokens", "context_length_exceeded"],
    [400, "prompt is too long: 210000 tokens > 200000 maximum", "context_length_exceeded"],
    [429, "Rate limit reached, try again in 2s", "rate_limit_exceeded"],
    [504, "The upstream timed out.", "server_error"],
  ])("gives a %i %j the code %s Codex acts on", (status, message, code) => {
    const events = responsesClient.streamFromHub({}, testContext()).fail({ status, type: "api_error", message, param: null, code: null });
    expect((events.at(-1)!.data as { response: { error: Json } }).response.error).toEqual({ code, message });
  });
});

describe("responses streams: what the SDK and Codex make of them", () => {
  /** A script with every item kind: reasoning, text, a function call and a freeform call, usage after the finish. */
  const script = (): HubStreamItem[] => [
    deltaItem({ role: "assistant", reasoning_content: "Plan: " }),
    deltaItem({ reasoning_content: "list, then patch." }),
    deltaItem({ content: "Listing " }),
    deltaItem({ content: "files." }),
    toolChunk([{ index: 0, id: "call_1", type: "function", function: { name: "functions__wait", arguments: '{"cell_id":' } }]),
    toolChunk([{ index: 0, function: { arguments: '"1"}' } }]),
    toolChunk([{ index: 1, id: "call_2", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } }]),
    deltaItem({}, "tool_calls"),
    usageItem(usage),
  ];
  const scriptReply = hubReply(
    {
      role: "assistant",
      content: "Listing files.",
      reasoning_content: "Plan: list, then patch.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "functions__wait", arguments: '{"cell_id":"1"}' } },
        { id: "call_2", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } },
      ],
    },
    "tool_calls",
    usage,
  );

  it("parses in the openai SDK's ResponseStream, keepalives included, to the same response as the non-stream translation", async () => {
    const { hints } = toHub(codeModeRequest());
    const stream = responsesClient.streamFromHub(hints, testContext());
    const events = [...stream.start(), ...stream.keepAlive(), ...script().flatMap((item) => [...stream.push(item), ...stream.keepAlive()]), ...stream.finish()];
    const streamed = await sdkAnswering(encodeEvents(events), "text/event-stream").responses.stream({ model: "client-model", input: "List the files." }).finalResponse();
    const whole = await sdkAnswering(JSON.stringify(responsesClient.replyFromHub(scriptReply, hints, testContext())), "application/json").responses.create({ model: "client-model", input: "List the files." });
    expect(stamped(unparsed(streamed))).toEqual(stamped(unparsed(whole)));
    expect(streamed.output_text).toBe("Listing files.");
    expect(streamed.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "custom_tool_call"]);
  });

  it("builds the final items from the deltas alone, as the SDK's accumulator does, equal to response.completed's output", () => {
    const { hints } = toHub(codeModeRequest());
    const events = runStream(script(), hints).map((event) => event.data as Parameters<typeof accumulateResponse>[0]);
    const beforeCompleted = events.slice(0, -1).reduce<ReturnType<typeof accumulateResponse> | undefined>((snapshot, event) => accumulateResponse(event, snapshot), undefined)!;
    expect(beforeCompleted.output).toEqual((events.at(-1) as unknown as { response: { output: Json[] } }).response.output);
  });

  it("gives Codex what codex-rs process_sse requires: a response object on created, whole ResponseItems on output_item.done, id and integer usage on completed", () => {
    const { hints } = toHub(codeModeRequest());
    const events = runStream(script(), hints);
    expect(events.every((event) => event.event === (event.data as { type: string }).type)).toBe(true);
    expect(data(events, "response.created")[0]!.response).toBeTypeOf("object");
    const done = data(events, "response.output_item.done").map((event) => event.item as Json);
    expect(done.map((item) => [item.type, item.call_id ?? null])).toEqual([
      ["reasoning", null],
      ["message", null],
      ["function_call", "call_1"],
      ["custom_tool_call", "call_2"],
    ]);
    expect(done[2]).toMatchObject({ name: "wait", namespace: "functions", arguments: '{"cell_id":"1"}' });
    const final = completed(events);
    expect(final.id).toBe("resp_1");
    for (const key of ["input_tokens", "output_tokens", "total_tokens"]) expect(Number.isInteger((final.usage as Json)[key])).toBe(true);
    for (const event of data(events, "response.reasoning_summary_text.delta")) expect(event.summary_index).toBe(0);
  });

  it("round-trips a whole Codex turn: the streamed items sent back as history become the assistant message and its calls", () => {
    const { hints } = toHub(codeModeRequest());
    const output = completed(runStream(script(), hints)).output as Json[];
    const history = [
      ...output,
      { type: "function_call_output", call_id: "call_1", output: "cell 1 finished" },
      { type: "custom_tool_call_output", call_id: "call_2", output: [text("README.md")] },
    ];
    expect(toHub(codeModeRequest(history)).request.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "Listing files.",
        reasoning_content: "Plan: list, then patch.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "functions__wait", arguments: '{"cell_id":"1"}' } },
          { id: "call_2", type: "function", function: { name: "functions__exec", arguments: JSON.stringify({ input: EXEC_CODE }) } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "cell 1 finished" },
      { role: "tool", tool_call_id: "call_2", content: "README.md" },
    ]);
  });
});
