import { describe, expect, it } from "vitest";
import { EXEC_CODE, EXEC_COMMAND_PARAMETERS, INPUT_PARAMETERS, PATCH_GRAMMAR, codeModeRequest, codex045Request, execTool, text, topLevelRequest, waitTool } from "./helpers/codex-requests.js";
import { testSeal } from "./helpers/translate.js";
import { toHub } from "./helpers/translate-responses.js";

/** Responses requests as chat requests (`responsesClient.toHub`): what Codex 0.169 and 0.45 send, and their tools and tool choice. */

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
      prompt_cache_key: "019a2b3c-session",
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
      prompt_cache_key: "019a2b3c-session",
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
