import { describe, expect, it } from "vitest";
import type { Json } from "../src/translate/hub.js";
import { messagesClient } from "../src/formats/messages/translators.js";
import { chatToolName } from "../src/translate/tool-names.js";
import { hubReply, testContext, testSeal } from "./helpers/translate.js";
import { assistant, body, hubOf, user } from "./helpers/translate-messages.js";

/** Anthropic Messages requests (Claude Code's) as chat requests: `messagesClient.toHub`. */

const toHub = (request: Json, overrides: Parameters<typeof testContext>[0] = {}) => messagesClient.toHub(request, testContext(overrides));

const BASH = { name: "Bash", description: "Run a shell command", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const BASH_FN = { type: "function", function: { name: "Bash", description: "Run a shell command", parameters: BASH.input_schema } };

describe("messages client: a request becomes a chat request", () => {
  it("translates what Claude Code 2.1 sends: billing line out, system blocks joined, Bash with $schema, fields chat lacks dropped", () => {
    const { request, hints } = toHub({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 64000,
      stream: true,
      system: [
        { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.197.a1b; cc_entrypoint=cli; cch=9f3e1;" },
        { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Use the tools available to you.", cache_control: { type: "ephemeral", ttl: "1h" } },
      ],
      messages: [user([{ type: "text", text: "<system-reminder>\nToday is Monday.\n</system-reminder>" }, { type: "text", text: "list the files", cache_control: { type: "ephemeral" } }])],
      tools: [{ ...BASH, input_schema: { $schema: "http://json-schema.org/draft-07/schema#", ...BASH.input_schema, additionalProperties: false }, cache_control: { type: "ephemeral" } }],
      metadata: { user_id: "user_0123_account_4567_session_89ab" },
      thinking: { type: "adaptive" },
      output_config: { effort: "medium" },
      temperature: 1,
      top_k: 40,
      service_tier: "auto",
      context_management: { edits: [{ type: "clear_thinking_20251015" }] },
      container: "c1",
      mcp_servers: [{ type: "url", url: "https://example.test/mcp", name: "x" }],
    });
    expect(request).toStrictEqual({
      model: "upstream-model",
      messages: [
        { role: "system", content: "You are Claude Code, Anthropic's official CLI for Claude.\n\nUse the tools available to you." },
        { role: "user", content: "<system-reminder>\nToday is Monday.\n</system-reminder>\n\nlist the files" },
      ],
      stream: true,
      max_tokens: 64000,
      temperature: 1,
      tools: [{ type: "function", function: { name: "Bash", description: "Run a shell command", parameters: { ...BASH.input_schema, additionalProperties: false } } }],
      reasoning_effort: "medium",
    });
    expect(hints.toolNames).toBeUndefined();
    expect(hints.inputTokens).toBeGreaterThan(30);
  });

  it("keeps the billing line for an upstream of Anthropic's own, and leaves out an empty or missing system", () => {
    const system = [{ type: "text", text: "x-anthropic-billing-header: cc_version=2.1.1; cch=1;" }, { type: "text", text: "Be brief." }];
    expect(hubOf(body([user("hi")], { system }), { keepsBillingHeader: true }).messages[0]).toEqual({ role: "system", content: "x-anthropic-billing-header: cc_version=2.1.1; cch=1;\n\nBe brief." });
    expect(hubOf(body([user("hi")], { system: "" })).messages).toEqual([{ role: "user", content: "hi" }]);
    expect(hubOf(body([user("hi")], { system: [system[0]] })).messages).toEqual([{ role: "user", content: "hi" }]);
    expect(hubOf(body([user("hi")], { system: "Plain string." })).messages[0]).toEqual({ role: "system", content: "Plain string." });
  });

  it("folds an inline system message into the next user message, after that message's tool results", () => {
    const request = hubOf(
      body([
        user("run ls"),
        assistant([{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }]),
        { role: "system", content: "The user switched to plan mode." },
        user([{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }, { type: "text", text: "and now?" }]),
      ]),
    );
    expect(request.messages).toEqual([
      { role: "user", content: "run ls" },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "a.txt" },
      { role: "user", content: "<system-reminder>\nThe user switched to plan mode.\n</system-reminder>\n\nand now?" },
    ]);
    expect(request.messages.filter((message) => message.role === "system")).toEqual([]);
  });

  it("folds an inline system message into the user message before it when no user message follows, or into one of its own", () => {
    expect(hubOf(body([user("hi"), { role: "system", content: [{ type: "text", text: "<system-reminder>Stay brief.</system-reminder>" }] }])).messages).toEqual([
      { role: "user", content: "hi\n\n<system-reminder>Stay brief.</system-reminder>" },
    ]);
    expect(hubOf(body([user("hi"), assistant("hello"), { role: "system", content: "Two" }, { role: "system", content: "Three" }, assistant("again")])).messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "<system-reminder>\nTwo\n</system-reminder>\n\n<system-reminder>\nThree\n</system-reminder>" },
      { role: "assistant", content: "again" },
    ]);
  });

  it("sends images as image_url parts (base64 as a data URL, URL as it is) and documents as text", () => {
    const request = hubOf(
      body([
        user([
          { type: "text", text: "compare" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          { type: "image", source: { type: "url", url: "https://example.test/cat.jpg" } },
          { type: "document", title: "notes.txt", source: { type: "text", media_type: "text/plain", data: "line one" } },
          { type: "document", source: { type: "content", content: [{ type: "text", text: "part a" }, { type: "text", text: "part b" }] } },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
          { type: "text", text: "" },
        ]),
      ]),
    );
    expect(request.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "compare" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.test/cat.jpg" } },
          { type: "text", text: "notes.txt\n\nline one" },
          { type: "text", text: "part a\n\npart b" },
          { type: "text", text: "[document left out (application/pdf): this model's server takes no files]" },
        ],
      },
    ]);
  });

  it("keeps consecutive tool_use blocks in one assistant message, texts joined, input key order kept", () => {
    const request = hubOf(
      body([
        user("look"),
        assistant([
          { type: "text", text: "Let me " },
          { type: "text", text: "check." },
          { type: "tool_use", id: "toolu_a", name: "Read", input: { file_path: "/b", offset: 1, limit: 2 } },
          { type: "tool_use", id: "toolu_b", name: "Read", input: { limit: 5, file_path: "/a" } },
        ]),
      ]),
    );
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: "Let me check.",
      tool_calls: [
        { id: "toolu_a", type: "function", function: { name: "Read", arguments: '{"file_path":"/b","offset":1,"limit":2}' } },
        { id: "toolu_b", type: "function", function: { name: "Read", arguments: '{"limit":5,"file_path":"/a"}' } },
      ],
    });
  });

  it("puts tool results right after their calls in tool_use order, then the user's text in one user message", () => {
    const request = hubOf(
      body([
        user("go"),
        assistant([
          { type: "tool_use", id: "toolu_a", name: "Bash", input: { command: "ls" } },
          { type: "tool_use", id: "toolu_b", name: "Read", input: { file_path: "/a.ts" } },
        ]),
        user([
          { type: "tool_result", tool_use_id: "toolu_b", content: [{ type: "text", text: "     1\tconst a = 1;" }, { type: "text", text: "     2\texport { a };" }] },
          { type: "tool_result", tool_use_id: "toolu_a", content: "a.ts\nb.ts", is_error: false },
          { type: "text", text: "<system-reminder>\nThe file a.ts was read.\n</system-reminder>" },
        ]),
      ]),
    );
    expect(request.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "toolu_a", content: "a.ts\nb.ts" },
      { role: "tool", tool_call_id: "toolu_b", content: "     1\tconst a = 1;\n     2\texport { a };" },
      { role: "user", content: "<system-reminder>\nThe file a.ts was read.\n</system-reminder>" },
    ]);
  });

  it("moves a tool result's images (Read of a PNG) into a user message after the tool messages", () => {
    const request = hubOf(
      body([
        user("show"),
        assistant([{ type: "tool_use", id: "toolu_png", name: "Read", input: { file_path: "/shot.png" } }]),
        user([{ type: "tool_result", tool_use_id: "toolu_png", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }, { type: "text", text: "what is it?" }]),
      ]),
    );
    expect(request.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "toolu_png", content: "[image attached below]" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }, { type: "text", text: "what is it?" }] },
    ]);
  });

  it("declares custom tools as functions, drops server tools and a tool_choice that names one", () => {
    const tools = [BASH, { type: "web_search_20250305", name: "web_search", max_uses: 5 }, { type: "bash_20250124", name: "bash" }, { type: "text_editor_20250728", name: "str_replace_based_edit_tool" }, { type: "custom", name: "Noop" }];
    const request = hubOf(body([user("hi")], { tools, tool_choice: { type: "tool", name: "web_search" } }));
    expect(request.tools).toEqual([BASH_FN, { type: "function", function: { name: "Noop", parameters: { type: "object", properties: {} } } }]);
    expect(request).not.toHaveProperty("tool_choice");
    expect(hubOf(body([user("hi")], { tools: [tools[1]], tool_choice: { type: "any" } }))).not.toHaveProperty("tools");
    expect(hubOf(body([user("hi")], { tools: [tools[1]], tool_choice: { type: "any" } }))).not.toHaveProperty("tool_choice");
  });

  it("maps tool_choice any/auto/none/tool and disable_parallel_tool_use", () => {
    const choice = (tool_choice: unknown) => {
      const request = hubOf(body([user("hi")], { tools: [BASH], tool_choice }));
      return [request.tool_choice, request.parallel_tool_calls];
    };
    expect(choice({ type: "any" })).toEqual(["required", undefined]);
    expect(choice({ type: "auto", disable_parallel_tool_use: true })).toEqual(["auto", false]);
    expect(choice({ type: "none" })).toEqual(["none", undefined]);
    expect(choice({ type: "tool", name: "Bash", disable_parallel_tool_use: true })).toEqual([{ type: "function", function: { name: "Bash" } }, false]);
    expect(choice(undefined)).toEqual([undefined, undefined]);
  });

  it("makes tool names chat servers refuse valid, in tools, past calls and tool_choice, and maps them back in replies", () => {
    const long = `mcp__${"very_long_server_name_".repeat(3)}__search_documents`;
    const { request, hints } = toHub(
      body([user("hi"), assistant([{ type: "tool_use", id: "toolu_1", name: "mcp.docs/search", input: {} }]), user([{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }])], {
        tools: [{ name: "mcp.docs/search", input_schema: { type: "object" } }, { name: long, input_schema: { type: "object" } }],
        tool_choice: { type: "tool", name: "mcp.docs/search" },
      }),
    );
    const dotted = chatToolName("mcp.docs/search");
    const cut = chatToolName(long);
    expect(dotted).toMatch(/^mcp_docs_search_[0-9a-f]{8}$/);
    expect(cut).toHaveLength(64);
    expect(cut).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(request.tools?.map((tool) => tool.function.name)).toEqual([dotted, cut]);
    expect(request.tool_choice).toEqual({ type: "function", function: { name: dotted } });
    expect(request.messages[1]).toMatchObject({ tool_calls: [{ function: { name: dotted } }] });
    expect([...(hints.toolNames ?? new Map())]).toEqual([
      [dotted, { name: "mcp.docs/search" }],
      [cut, { name: long }],
    ]);
    const reply = messagesClient.replyFromHub(hubReply({ content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: dotted, arguments: "{}" } }] }, "tool_calls"), hints, testContext());
    expect(reply.content).toEqual([{ type: "tool_use", id: "call_1", name: "mcp.docs/search", input: {} }]);
  });

  it("sends back reasoning the gateway signed under the field it came from, and drops any other thinking", () => {
    const mine = { type: "thinking", thinking: "The user wants ls.", signature: testSeal.sign("The user wants ls.", "reasoning") };
    const theirs = { type: "thinking", thinking: "Anthropic's own.", signature: "EqQBCkYIBxgCKkB..." };
    const forged = { type: "thinking", thinking: "Edited text.", signature: testSeal.sign("Original text.", "reasoning_content") };
    const redacted = { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" };
    const request = hubOf(body([user("go"), assistant([theirs, mine, forged, redacted, { type: "text", text: "Running it." }, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }])]));
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: "Running it.",
      tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }],
      reasoning: "The user wants ls.",
    });
    const deepseek = { type: "thinking", thinking: "Plan.", signature: testSeal.sign("Plan.", "reasoning_content") };
    expect(hubOf(body([user("go"), assistant([deepseek, { type: "text", text: "Done." }])])).messages[1]).toEqual({ role: "assistant", content: "Done.", reasoning_content: "Plan." });
    expect(JSON.stringify(hubOf(body([user("go"), assistant([theirs, redacted, { type: "text", text: "x" }])])))).not.toMatch(/Anthropic's own|redacted|signature/);
  });

  it("maps thinking budgets and effort words to reasoning_effort, and asks for none when thinking is off or absent", () => {
    const effort = (extra: Json) => hubOf(body([user("hi")], extra)).reasoning_effort;
    expect(effort({ thinking: { type: "enabled", budget_tokens: 1024 } })).toBe("low");
    expect(effort({ thinking: { type: "enabled", budget_tokens: 2048 } })).toBe("low");
    expect(effort({ thinking: { type: "enabled", budget_tokens: 2049 } })).toBe("medium");
    expect(effort({ thinking: { type: "enabled", budget_tokens: 8192 } })).toBe("medium");
    expect(effort({ thinking: { type: "enabled", budget_tokens: 8193 } })).toBe("high");
    expect(effort({ thinking: { type: "enabled", budget_tokens: 31999 } })).toBe("high");
    expect(effort({ thinking: { type: "adaptive" }, output_config: { effort: "low" } })).toBe("low");
    expect(effort({ thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } })).toBe("high");
    expect(effort({ thinking: { type: "adaptive" }, output_config: { effort: "max" } })).toBe("high");
    // An explicit budget keeps precedence over the effort word (SPEC 12).
    expect(effort({ thinking: { type: "enabled", budget_tokens: 20000 }, output_config: { effort: "low" } })).toBe("high");
    expect(effort({ thinking: { type: "enabled", budget_tokens: 1024 }, output_config: { effort: "max" } })).toBe("low");
    expect(effort({ thinking: { type: "adaptive" } })).toBe("high");
    expect(effort({ thinking: { type: "disabled" }, output_config: { effort: "high" } })).toBeUndefined();
    expect(effort({ output_config: { effort: "high" } })).toBeUndefined();
    expect(effort({})).toBeUndefined();
  });

  it("asks for JSON through response_format when Claude Code's title call sets output_config.format", () => {
    const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"], additionalProperties: false };
    const request = hubOf(body([user("Summarize this session in a title")], { system: [{ type: "text", text: "Generate a title." }], output_config: { format: { type: "json_schema", schema } } }));
    expect(request.response_format).toEqual({ type: "json_schema", json_schema: { name: "structured_output", schema } });
    expect(request).not.toHaveProperty("output_config");
    expect(hubOf(body([user("x")], { output_format: { type: "json_schema", schema } })).response_format).toEqual({ type: "json_schema", json_schema: { name: "structured_output", schema } });
  });

  it("copies stop sequences, temperature and top_p, and sets stream only when asked", () => {
    const request = hubOf(body([user("hi")], { stop_sequences: ["\n\nHuman:", "", 3], temperature: 0.2, top_p: 0.9, stream: false }));
    expect(request).toStrictEqual({ model: "upstream-model", messages: [{ role: "user", content: "hi" }], max_tokens: 1024, temperature: 0.2, top_p: 0.9, stop: ["\n\nHuman:"] });
  });

  it("never sends a field chat does not know (cache_control, top_k, metadata, $schema, output_config)", () => {
    const request = hubOf(
      body([user([{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }])], {
        system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
        tools: [{ ...BASH, input_schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }, cache_control: { type: "ephemeral" } }],
        top_k: 5,
        metadata: { user_id: "u" },
        output_config: { effort: "low" },
        service_tier: "standard_only",
      }),
    );
    expect(JSON.stringify(request)).not.toMatch(/cache_control|top_k|metadata|\$schema|output_config|service_tier|user_id/);
    for (const key of Object.keys(request)) expect(["model", "messages", "stream", "max_tokens", "temperature", "top_p", "stop", "tools", "tool_choice", "parallel_tool_calls", "response_format", "reasoning_effort"]).toContain(key);
  });
});

describe("Claude Code's tool search on a translated route (SPEC 12)", () => {
  const TOOL_SEARCH = { name: "ToolSearch", description: "Fetches full schema definitions for deferred tools.", input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } };
  const WEATHER = { name: "mcp__weather__forecast", description: "The forecast for a city", input_schema: { type: "object", properties: { city: { type: "string" } } }, defer_loading: true };
  const PLACEHOLDER = { name: "DeferredToolPlaceholder", description: "Reserved placeholder.", input_schema: { type: "object", properties: {} }, defer_loading: true };
  const names = (request: Json) => ((request.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
  const search = assistant([{ type: "tool_use", id: "toolu_s", name: "ToolSearch", input: { query: "select:mcp__weather__forecast" } }]);
  const found = user([{ type: "tool_result", tool_use_id: "toolu_s", content: [{ type: "tool_reference", tool_name: "mcp__weather__forecast" }] }]);

  it("leaves a deferred tool out until a tool_reference loads it; non-deferred tools go as always", () => {
    const tools = [BASH, TOOL_SEARCH, WEATHER, PLACEHOLDER];
    expect(names(hubOf(body([user("weather in Oslo?")], { tools })))).toEqual(["Bash", "ToolSearch"]);
    const after = hubOf(body([user("weather in Oslo?"), search, found], { tools }));
    expect(names(after)).toEqual(["Bash", "ToolSearch", "mcp__weather__forecast"]);
    expect((after.tools as { function: Record<string, unknown> }[])[2]!.function).toEqual({ name: "mcp__weather__forecast", description: "The forecast for a city", parameters: WEATHER.input_schema });
    expect(JSON.stringify(after.tools)).not.toContain("defer_loading");
  });

  it("a tool_reference block reads `Tool loaded: NAME` in the tool result", () => {
    const two = user([{ type: "tool_result", tool_use_id: "toolu_s", content: [{ type: "tool_reference", tool_name: "a" }, { type: "tool_reference", tool_name: "b" }] }]);
    expect(hubOf(body([user("go"), search, two], { tools: [TOOL_SEARCH] })).messages.at(-1)).toEqual({ role: "tool", tool_call_id: "toolu_s", content: "Tool loaded: a\nTool loaded: b" });
    expect(hubOf(body([user("go"), search, found], { tools: [TOOL_SEARCH] })).messages.at(-1)).toEqual({ role: "tool", tool_call_id: "toolu_s", content: "Tool loaded: mcp__weather__forecast" });
  });

  it("a tool_choice naming a deferred tool not yet loaded is dropped with it", () => {
    const request = hubOf(body([user("go")], { tools: [BASH, WEATHER], tool_choice: { type: "tool", name: "mcp__weather__forecast" } }));
    expect(names(request)).toEqual(["Bash"]);
    expect(request).not.toHaveProperty("tool_choice");
  });
});
