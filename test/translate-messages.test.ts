import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { encodeEvents, decodeEvents } from "../src/sse/sse.js";
import type { HubChunk, HubReply, HubRequest, HubToolCallDelta, Json } from "../src/translate/hub.js";
import { messagesClient, messagesUpstream } from "../src/translate/messages/index.js";
import { chatToolName } from "../src/translate/tool-names.js";
import type { ClientEvent, HubStreamItem, ReplyHints } from "../src/translate/types.js";
import { deltaItem, testContext, testSeal, usageItem } from "./helpers/translate.js";

const toHub = (body: Json, overrides: Parameters<typeof testContext>[0] = {}) => messagesClient.toHub(body, testContext(overrides));
const hubOf = (body: Json, overrides: Parameters<typeof testContext>[0] = {}) => toHub(body, overrides).request;
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const body = (messages: unknown[], extra: Json = {}): Json => ({ model: "claude-sonnet-4-5", max_tokens: 1024, messages, ...extra });

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
    expect(effort({ thinking: { type: "enabled", budget_tokens: 20000 }, output_config: { effort: "low" } })).toBe("low");
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

/** A chat reply with one choice. */
function hubReply(message: Partial<HubReply["choices"][number]["message"]>, finish: string | null = "stop", usage?: HubReply["usage"]): HubReply {
  return { id: "chatcmpl-9", object: "chat.completion", model: "upstream-model", choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }], ...(usage ? { usage } : {}) };
}

const USAGE = { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280, prompt_tokens_details: { cached_tokens: 1000 } };
const MESSAGES_USAGE = { input_tokens: 200, output_tokens: 80, cache_creation_input_tokens: 0, cache_read_input_tokens: 1000 };
const NO_USAGE = (input = 0) => ({ input_tokens: input, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

describe("messages client: a chat reply becomes a messages reply", () => {
  it("puts thinking (signed) first, then text, then tool_use blocks with parsed input, and stops for tool_use", () => {
    const reply = messagesClient.replyFromHub(
      hubReply(
        {
          reasoning_content: "Need the file list.",
          content: "Let me check.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } },
            { id: "call_b", type: "function", function: { name: "Read", arguments: '{"file_path":"/a"}' } },
          ],
        },
        "tool_calls",
        USAGE,
      ),
      {},
      testContext(),
    );
    expect(reply).toStrictEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "client-model",
      content: [
        { type: "thinking", thinking: "Need the file list.", signature: testSeal.sign("Need the file list.", "reasoning_content") },
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "call_a", name: "Bash", input: { command: "ls" } },
        { type: "tool_use", id: "call_b", name: "Read", input: { file_path: "/a" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: MESSAGES_USAGE,
    });
  });

  it("never emits an empty text block", () => {
    const reply = messagesClient.replyFromHub(hubReply({ content: "" }), {}, testContext());
    expect(reply.content).toEqual([]);
    const toolOnly = messagesClient.replyFromHub(hubReply({ content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: "{}" } }] }, "tool_calls"), {}, testContext());
    expect(toolOnly.content).toEqual([{ type: "tool_use", id: "c1", name: "Bash", input: {} }]);
  });

  it("stops for tool_use whenever a call is present, and never for tool_use without one", () => {
    const stop = (message: Parameters<typeof hubReply>[0], finish: string | null) => messagesClient.replyFromHub(hubReply(message, finish), {}, testContext()).stop_reason;
    const call = { tool_calls: [{ id: "c1", type: "function" as const, function: { name: "Bash", arguments: '{"command":"ls"}' } }] };
    expect(stop(call, "stop")).toBe("tool_use");
    expect(stop(call, null)).toBe("tool_use");
    expect(stop({ content: "Done." }, "tool_calls")).toBe("end_turn");
    expect(stop({ content: "Done.", tool_calls: [{ id: "c1", type: "function", function: { name: "", arguments: "{}" } }] }, "tool_calls")).toBe("end_turn");
    expect(stop({ content: "Done." }, "stop")).toBe("end_turn");
    expect(stop({ content: "Cut" }, "length")).toBe("max_tokens");
    expect(stop({ content: "No." }, "content_filter")).toBe("refusal");
    expect(stop({ content: "?" }, null)).toBe("end_turn");
  });

  it("repairs broken tool arguments or falls back to {}, never throws", () => {
    const inputs = (args: string) =>
      (messagesClient.replyFromHub(hubReply({ tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: args } }] }, "tool_calls"), {}, testContext()).content as Json[])[0]?.input;
    expect(inputs('{"command": "ls -la"')).toEqual({ command: "ls -la" });
    expect(inputs("{'command': 'pwd',}")).toEqual({ command: "pwd" });
    expect(inputs("not json at all")).toEqual({});
    expect(inputs("")).toEqual({});
  });

  it("keeps an upstream call id Anthropic accepts and makes a toolu_ id for any other", () => {
    const reply = messagesClient.replyFromHub(
      hubReply({ tool_calls: [{ id: "functions.Bash:0", type: "function", function: { name: "Bash", arguments: "{}" } }, { id: "call_ok-1", type: "function", function: { name: "Bash", arguments: "{}" } }] }, "tool_calls"),
      {},
      testContext(),
    );
    expect((reply.content as Json[]).map((block) => block.id)).toEqual(["toolu_1", "call_ok-1"]);
  });

  it("reports input without cached tokens, both cache keys always, and the estimate when the upstream sent no usage", () => {
    const usage = (u: HubReply["usage"] | undefined, hints: ReplyHints = {}) => messagesClient.replyFromHub(hubReply({ content: "x" }, "stop", u), hints, testContext()).usage;
    expect(usage({ prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 })).toEqual({ input_tokens: 50, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(usage({ prompt_tokens: 500, completion_tokens: 5, total_tokens: 505, prompt_tokens_details: { cached_tokens: 300, cache_creation_tokens: 100 } })).toEqual({
      input_tokens: 100,
      output_tokens: 5,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 300,
    });
    expect(usage(undefined, { inputTokens: 42 })).toEqual(NO_USAGE(42));
  });

  it("signs reasoning that came as `reasoning` so that it goes back under `reasoning` next turn", () => {
    const reply = messagesClient.replyFromHub(hubReply({ reasoning: "Think.", content: "Answer." }), {}, testContext());
    const content = reply.content as Json[];
    const next = hubOf(body([user("q"), assistant(content), user("again")]));
    expect(next.messages[1]).toEqual({ role: "assistant", content: "Answer.", reasoning: "Think." });
  });
});

// ---- streams --------------------------------------------------------------------------------------------------

const ev = (type: string, fields: Json = {}): ClientEvent => ({ event: type, data: { type, ...fields } });
const opening = (input = 0): ClientEvent[] => [
  ev("message_start", { message: { id: "msg_1", type: "message", role: "assistant", model: "client-model", content: [], stop_reason: null, stop_sequence: null, usage: NO_USAGE(input) } }),
  ev("ping"),
];
const blockStart = (index: number, content_block: Json) => ev("content_block_start", { index, content_block });
const blockDelta = (index: number, delta: Json) => ev("content_block_delta", { index, delta });
const text = (index: number, value: string) => blockDelta(index, { type: "text_delta", text: value });
const json = (index: number, partial_json: string) => blockDelta(index, { type: "input_json_delta", partial_json });
const thinking = (index: number, value: string) => blockDelta(index, { type: "thinking_delta", thinking: value });
const blockStop = (index: number) => ev("content_block_stop", { index });
const textStart = (index: number) => blockStart(index, { type: "text", text: "" });
const toolStart = (index: number, id: string, name: string) => blockStart(index, { type: "tool_use", id, name, input: {} });
const closing = (stop_reason: string, usage: Json = NO_USAGE()): ClientEvent[] => [ev("message_delta", { delta: { stop_reason, stop_sequence: null }, usage }), ev("message_stop")];

const tools = (pieces: HubToolCallDelta[], finish: string | null = null) => deltaItem({ tool_calls: pieces }, finish);

/** Runs a hub stream through the messages translator: start, every item, finish. */
function streamed(items: HubStreamItem[], hints: ReplyHints = {}): ClientEvent[] {
  const stream = messagesClient.streamFromHub(hints, testContext());
  const out = stream.start();
  for (const item of items) out.push(...stream.push(item));
  out.push(...stream.finish());
  return out;
}

/** The arguments each tool block received, joined, parsed. */
function toolInputs(events: ClientEvent[]): unknown[] {
  const byIndex = new Map<number, string>();
  for (const { data } of events as { data: Json }[]) {
    if (data.type === "content_block_start" && (data.content_block as Json).type === "tool_use") byIndex.set(data.index as number, "");
    const delta = data.delta as Json | undefined;
    if (data.type === "content_block_delta" && delta?.type === "input_json_delta") byIndex.set(data.index as number, (byIndex.get(data.index as number) ?? "") + (delta.partial_json as string));
  }
  return [...byIndex.values()].map((joined) => JSON.parse(joined));
}

/** The grammar every stream must keep (research B2 invariants 1, 3, 8). */
function expectGrammar(events: ClientEvent[]): void {
  const types = events.map((event) => (event.data as Json).type);
  expect(types[0]).toBe("message_start");
  expect(types.filter((type) => type === "message_start")).toHaveLength(1);
  let open: number | undefined;
  let next = 0;
  for (const { data } of events as { data: Json }[]) {
    if (data.type === "content_block_start") {
      expect(open).toBeUndefined();
      expect(data.index).toBe(next++);
      open = data.index as number;
    } else if (data.type === "content_block_delta") expect(data.index).toBe(open);
    else if (data.type === "content_block_stop") {
      expect(data.index).toBe(open);
      open = undefined;
    }
  }
  expect(open).toBeUndefined();
  if (types.at(-1) !== "error") expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
}

describe("messages client: a chat stream becomes Anthropic's event sequence", () => {
  it("streams reasoning, text and two tool calls as research B2's reference sequence", () => {
    const events = streamed(
      [
        deltaItem({ role: "assistant", content: "" }),
        deltaItem({ reasoning_content: "Need " }),
        deltaItem({ reasoning_content: "files." }),
        deltaItem({ content: "Let me check." }),
        tools([{ index: 0, id: "call_a", type: "function", function: { name: "Read", arguments: "" } }]),
        tools([{ index: 0, function: { arguments: '{"file_path":' } }]),
        tools([{ index: 0, function: { arguments: '"/a"}' } }]),
        tools([{ index: 1, id: "call_b", type: "function", function: { name: "Read", arguments: '{"file_path":"/b"}' } }]),
        deltaItem({}, "tool_calls"),
        usageItem(USAGE),
      ],
      { inputTokens: 1180 },
    );
    expect(events).toStrictEqual([
      ...opening(1180),
      blockStart(0, { type: "thinking", thinking: "" }),
      thinking(0, "Need "),
      thinking(0, "files."),
      blockDelta(0, { type: "signature_delta", signature: testSeal.sign("Need files.", "reasoning_content") }),
      blockStop(0),
      textStart(1),
      text(1, "Let me check."),
      blockStop(1),
      toolStart(2, "call_a", "Read"),
      json(2, '{"file_path":'),
      json(2, '"/a"}'),
      blockStop(2),
      toolStart(3, "call_b", "Read"),
      json(3, '{"file_path":"/b"}'),
      blockStop(3),
      ...closing("tool_use", MESSAGES_USAGE),
    ]);
    expectGrammar(events);
  });

  it("closes each block before the next in text -> tool -> text", () => {
    const events = streamed([
      deltaItem({ content: "First." }),
      tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }]),
      deltaItem({ content: "Then more." }),
      deltaItem({}, "stop"),
    ]);
    expect(events.slice(2)).toStrictEqual([
      textStart(0),
      text(0, "First."),
      blockStop(0),
      toolStart(1, "call_1", "Bash"),
      json(1, '{"command":"ls"}'),
      blockStop(1),
      textStart(2),
      text(2, "Then more."),
      blockStop(2),
      ...closing("tool_use"),
    ]);
    expectGrammar(events);
  });

  it("opens a new thinking block when reasoning comes back after text", () => {
    const events = streamed([deltaItem({ reasoning: "a" }), deltaItem({ content: "b" }), deltaItem({ reasoning: "c" }), deltaItem({}, "stop")]);
    expect(events.slice(2)).toStrictEqual([
      blockStart(0, { type: "thinking", thinking: "" }),
      thinking(0, "a"),
      blockDelta(0, { type: "signature_delta", signature: testSeal.sign("a", "reasoning") }),
      blockStop(0),
      textStart(1),
      text(1, "b"),
      blockStop(1),
      blockStart(2, { type: "thinking", thinking: "" }),
      thinking(2, "c"),
      blockDelta(2, { type: "signature_delta", signature: testSeal.sign("c", "reasoning") }),
      blockStop(2),
      ...closing("end_turn"),
    ]);
  });

  it("ignores empty text and reasoning placeholders instead of opening empty blocks", () => {
    const events = streamed([
      deltaItem({ role: "assistant", content: "", reasoning_content: "" }),
      deltaItem({ content: null, reasoning_content: null }),
      tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"pwd"}' } }]),
      deltaItem({ content: "" }, "tool_calls"),
    ]);
    expect(events.slice(2)).toStrictEqual([toolStart(0, "call_1", "Bash"), json(0, '{"command":"pwd"}'), blockStop(0), ...closing("tool_use")]);
  });

  it("ends an empty upstream stream by the grammar, message_start first", () => {
    expect(streamed([])).toStrictEqual([...opening(), ...closing("end_turn")]);
    const stream = messagesClient.streamFromHub({ inputTokens: 7 }, testContext());
    expect(stream.finish()).toStrictEqual([...opening(7), ...closing("end_turn", NO_USAGE(7))]);
    expect(stream.finish()).toEqual([]);
  });

  it("ends a stream with no finish reason and no [DONE] by the grammar", () => {
    const events = streamed([deltaItem({ content: "partial" }), tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"l' } }])]);
    expect(events.slice(2)).toStrictEqual([textStart(0), text(0, "partial"), blockStop(0), toolStart(1, "call_1", "Bash"), json(1, '{"command":"l'), json(1, '"}'), blockStop(1), ...closing("tool_use")]);
    expect(toolInputs(events)).toEqual([{ command: "l" }]);
  });

  it("holds message_delta until finish() so that usage after the finish reason reaches it", () => {
    const stream = messagesClient.streamFromHub({}, testContext());
    stream.start();
    expect(stream.push(deltaItem({ content: "Hi" }, "stop"))).toStrictEqual([textStart(0), text(0, "Hi")]);
    expect(stream.push(usageItem(USAGE))).toEqual([]);
    expect(stream.finish()).toStrictEqual([blockStop(0), ...closing("end_turn", MESSAGES_USAGE)]);
  });

  it("takes usage that rides on the finish chunk too", () => {
    expect(streamed([deltaItem({ content: "Hi" }, "stop", USAGE)]).slice(-2)).toStrictEqual(closing("end_turn", MESSAGES_USAGE));
  });

  it("ends with one Anthropic-shaped error event and nothing after it when the upstream reports an error mid-stream", () => {
    const stream = messagesClient.streamFromHub({}, testContext());
    const error = { status: 502, type: "api_error", message: "upstream overloaded", param: null, code: "upstream_error" };
    const events = [...stream.start(), ...stream.push(deltaItem({ content: "Hal" })), ...stream.push({ type: "error", error }), ...stream.push(deltaItem({ content: "f" })), ...stream.finish(), ...stream.keepAlive()];
    expect(events).toStrictEqual([...opening(), textStart(0), text(0, "Hal"), { event: "error", data: { type: "error", error: { type: "api_error", message: "upstream overloaded" } } }]);
  });

  it("sends message_start before the error event when the upstream fails before any chunk", () => {
    const stream = messagesClient.streamFromHub({ inputTokens: 12 }, testContext());
    const error = { status: 504, type: "timeout_error", message: "The upstream went silent for 300 s.", param: null, code: "upstream_timeout" };
    expect(stream.fail(error)).toStrictEqual([...opening(12), { event: "error", data: { type: "error", error: { type: "timeout_error", message: "The upstream went silent for 300 s." } } }]);
    expect(stream.fail(error)).toEqual([]);
    expect(stream.finish()).toEqual([]);
  });

  it("keeps a silent stream alive with pings, opening it first if needed", () => {
    const stream = messagesClient.streamFromHub({}, testContext());
    expect(stream.keepAlive()).toStrictEqual(opening());
    expect(stream.keepAlive()).toStrictEqual([ev("ping")]);
    expect(stream.start()).toEqual([]);
    stream.finish();
    expect(stream.keepAlive()).toEqual([]);
  });

  it("feeds a call with no argument text one {} delta", () => {
    const events = streamed([tools([{ index: 0, id: "call_1", function: { name: "TodoRead" } }], "tool_calls")]);
    expect(events.slice(2)).toStrictEqual([toolStart(0, "call_1", "TodoRead"), json(0, "{}"), blockStop(0), ...closing("tool_use")]);
  });

  it("maps a renamed tool back to the client's name and an id Anthropic refuses to a toolu_ id", () => {
    const hints: ReplyHints = { toolNames: new Map([["mcp_docs_search_1a2b3c4d", { name: "mcp.docs/search" }]]) };
    const events = streamed([tools([{ index: 0, id: "functions.search:0", function: { name: "mcp_docs_search_1a2b3c4d", arguments: "{}" } }], "tool_calls")], hints);
    expect(events[2]).toStrictEqual(toolStart(0, "toolu_1", "mcp.docs/search"));
  });

  describe("reads every upstream tool-call shape of research B2", () => {
    const cases: [string, HubStreamItem[], unknown[]][] = [
      ["a whole call in one chunk (Ollama)", [tools([{ index: 0, id: "call_1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }]), deltaItem({}, "tool_calls")], [{ command: "ls" }]],
      [
        "id and name first, then fragments by index (OpenAI, vLLM)",
        [tools([{ index: 0, id: "call_1", type: "function", function: { name: "Bash", arguments: "" } }]), tools([{ index: 0, function: { arguments: '{"comm' } }]), tools([{ index: 0, function: { arguments: 'and":"ls"}' } }])],
        [{ command: "ls" }],
      ],
      [
        "the id repeated on every fragment (LiteLLM, SGLang)",
        [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":' } }]), tools([{ index: 0, id: "call_1", function: { arguments: '"ls"}' } }])],
        [{ command: "ls" }],
      ],
      [
        "a second call on index 0 with a new id (lmdeploy, SGLang)",
        [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }]), tools([{ index: 0, id: "call_2", function: { name: "Read", arguments: '{"file_path":"/a"}' } }])],
        [{ command: "ls" }, { file_path: "/a" }],
      ],
      ["no id at all (vLLM)", [tools([{ index: 0, function: { name: "Bash", arguments: '{"command":' } }]), tools([{ index: 0, function: { arguments: '"ls"}' } }])], [{ command: "ls" }]],
      [
        "arguments before the name",
        [tools([{ index: 0, id: "call_1", function: { arguments: '{"command":"ls"}' } }]), tools([{ index: 0, id: "call_1", function: { name: "Bash" } }])],
        [{ command: "ls" }],
      ],
      [
        "the complete call replayed at the end",
        [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":' } }]), tools([{ index: 0, function: { arguments: '"ls"}' } }]), tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }])],
        [{ command: "ls" }],
      ],
      [
        "the same call at several indexes (LocalAI)",
        [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }]), tools([{ index: 1, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }])],
        [{ command: "ls" }],
      ],
      [
        "two entries for the same index in one chunk",
        [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command"' } }, { index: 0, function: { arguments: ':"ls"}' } }])],
        [{ command: "ls" }],
      ],
      ["arguments as an object (zai-proxy)", [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: { command: "ls" } } }])], [{ command: "ls" }]],
      ["finish_reason stop with a tool call (Qwen, GLM on vLLM)", [tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }], "stop")], [{ command: "ls" }]],
    ];
    for (const [name, items, inputs] of cases) {
      it(name, () => {
        const events = streamed(items);
        expectGrammar(events);
        expect(toolInputs(events)).toEqual(inputs);
        expect((events.at(-2)?.data as Json).delta).toEqual({ stop_reason: "tool_use", stop_sequence: null });
      });
    }

    it("finish_reason tool_calls with no usable call ends the turn", () => {
      const events = streamed([deltaItem({ content: "Done." }), tools([{ index: 0, id: "call_1", function: { arguments: "{}" } }], "tool_calls")]);
      expect(events.slice(2)).toStrictEqual([textStart(0), text(0, "Done."), blockStop(0), ...closing("end_turn")]);
    });

    it("several choices are read as one reply", () => {
      const item: HubStreamItem = { type: "chunk", chunk: { choices: [{ index: 0, delta: {}, finish_reason: null }, { index: 1, delta: { content: "from choice 1" }, finish_reason: "stop" }] } };
      expect(streamed([item]).slice(2)).toStrictEqual([textStart(0), text(0, "from choice 1"), blockStop(0), ...closing("end_turn")]);
    });
  });
});

/** An Anthropic SDK client whose every request is answered with `sse`. */
const anthropicOver = (sse: string) =>
  new Anthropic({ apiKey: "test", baseURL: "http://sdk.test", fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }) });

describe("messages client: the Anthropic SDK reads the stream as the same message as the JSON reply", () => {
  const script: [HubReply["choices"][number]["message"], HubStreamItem[]][] = [
    [
      { role: "assistant", reasoning_content: "Plan it.", content: "Checking.", tool_calls: [{ id: "call_a", type: "function", function: { name: "Bash", arguments: '{"command":"ls -la","timeout":5}' } }, { id: "call_b", type: "function", function: { name: "Read", arguments: '{"file_path":"/x"}' } }] },
      [
        deltaItem({ reasoning_content: "Plan " }),
        deltaItem({ reasoning_content: "it." }),
        deltaItem({ content: "Check" }),
        deltaItem({ content: "ing." }),
        tools([{ index: 0, id: "call_a", function: { name: "Bash", arguments: '{"command":"ls -la",' } }]),
        tools([{ index: 0, function: { arguments: '"timeout":5}' } }]),
        tools([{ index: 1, id: "call_b", function: { name: "Read", arguments: '{"file_path":"/x"}' } }]),
        deltaItem({}, "tool_calls"),
      ],
    ],
    [{ role: "assistant", content: "Just text." }, [deltaItem({ content: "Just " }), deltaItem({ content: "text." }), deltaItem({}, "stop")]],
  ];

  for (const [index, [message, items]] of script.entries()) {
    it(`script ${index + 1}`, async () => {
      const sse = encodeEvents(streamed([...items, usageItem(USAGE)]));
      const final = await anthropicOver(sse).messages.stream({ model: "client-model", max_tokens: 100, messages: [{ role: "user", content: "go" }] }).finalMessage();
      const reply = messagesClient.replyFromHub({ id: "x", model: "upstream-model", choices: [{ index: 0, message, finish_reason: items.at(-1)?.type === "chunk" ? (items.at(-1) as { chunk: HubChunk }).chunk.choices[0]!.finish_reason : null }], usage: USAGE }, {}, testContext());
      // The SDK adds fields of its own to what it accumulated.
      const { parsed_output: _parsed, stop_details: _details, ...accumulated } = final as unknown as Json;
      expect(accumulated).toStrictEqual(reply);
    });
  }

  it("the SDK raises the stream's error event as an API error", async () => {
    const stream = messagesClient.streamFromHub({}, testContext());
    const sse = encodeEvents([...stream.start(), ...stream.push(deltaItem({ content: "a" })), ...stream.fail({ status: 502, type: "api_error", message: "boom", param: null, code: null })]);
    await expect(anthropicOver(sse).messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).finalMessage()).rejects.toThrow(/boom/);
  });
});

const fromHub = (request: Partial<HubRequest>, overrides: Parameters<typeof testContext>[0] = {}) =>
  messagesUpstream.fromHub({ model: "upstream-model", messages: [], ...request } as HubRequest, testContext(overrides));

describe("messages upstream: a chat request becomes a messages request", () => {
  it("translates what Qwen Code 0.15 sends: tool results as lists of text parts, consecutive tool messages in one user message", () => {
    const out = fromHub({
      model: "upstream-model",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 8000,
      temperature: 0,
      top_p: 1,
      messages: [
        { role: "system", content: "You are Qwen Code." },
        { role: "user", content: [{ type: "text", text: "fix the bug" }] },
        {
          role: "assistant",
          content: "Reading both.",
          reasoning_content: "Unsigned reasoning.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"absolute_path":"/a.ts"}' } },
            { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"absolute_path":"/b.ts"' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "const a = 1;" }] as unknown as string },
        { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "const b = " }, { type: "text", text: "2;" }] as unknown as string },
        { role: "user", content: "now fix it" },
      ],
      tools: [{ type: "function", function: { name: "read_file", description: "Reads a file", parameters: { type: "object", properties: { absolute_path: { type: "string" } }, required: ["absolute_path"] } } }],
    });
    expect(out).toStrictEqual({
      model: "upstream-model",
      max_tokens: 8000,
      system: "You are Qwen Code.",
      messages: [
        { role: "user", content: [{ type: "text", text: "fix the bug" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading both." },
            { type: "tool_use", id: "call_1", name: "read_file", input: { absolute_path: "/a.ts" } },
            { type: "tool_use", id: "call_2", name: "read_file", input: { absolute_path: "/b.ts" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "const a = 1;" },
            { type: "tool_result", tool_use_id: "call_2", content: "const b = 2;" },
            { type: "text", text: "now fix it" },
          ],
        },
      ],
      temperature: 0,
      tools: [{ name: "read_file", description: "Reads a file", input_schema: { type: "object", properties: { absolute_path: { type: "string" } }, required: ["absolute_path"] } }],
      stream: true,
    });
  });

  it("gathers system and developer messages from any position into system", () => {
    const out = fromHub({ messages: [{ role: "developer", content: "Rule one." }, { role: "user", content: "hi" }, { role: "system", content: [{ type: "text", text: "Rule two." }] }, { role: "user", content: "again" }] });
    expect(out.system).toBe("Rule one.\n\nRule two.");
    expect(out.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }, { type: "text", text: "again" }] }]);
  });

  it("sends max_tokens from max_tokens or max_completion_tokens, 4096 when absent, capped by maxOutputTokens", () => {
    expect(fromHub({}).max_tokens).toBe(4096);
    expect(fromHub({ max_completion_tokens: 300 }).max_tokens).toBe(300);
    expect(fromHub({ max_tokens: 64000 }, { maxOutputTokens: 16000 }).max_tokens).toBe(16000);
  });

  it("sends stop sequences without whitespace-only ones, and only one of temperature and top_p", () => {
    expect(fromHub({ stop: ["END", " ", "\n"] }).stop_sequences).toEqual(["END"]);
    expect(fromHub({ stop: "END" as unknown as string[] }).stop_sequences).toEqual(["END"]);
    expect(fromHub({ stop: ["\n"] })).not.toHaveProperty("stop_sequences");
    const both = fromHub({ temperature: 0.3, top_p: 0.8 });
    expect([both.temperature, both.top_p]).toEqual([0.3, undefined]);
    expect(fromHub({ top_p: 0.8 }).top_p).toBe(0.8);
  });

  it("maps tool_choice and parallel_tool_calls", () => {
    const tools = [{ type: "function" as const, function: { name: "f", parameters: { type: "object" } } }];
    const choice = (request: Partial<HubRequest>) => fromHub({ tools, ...request }).tool_choice;
    expect(choice({ tool_choice: "auto" })).toEqual({ type: "auto" });
    expect(choice({ tool_choice: "required" })).toEqual({ type: "any" });
    expect(choice({ tool_choice: "none" })).toEqual({ type: "none" });
    expect(choice({ tool_choice: { type: "function", function: { name: "f" } }, parallel_tool_calls: false })).toEqual({ type: "tool", name: "f", disable_parallel_tool_use: true });
    expect(choice({ parallel_tool_calls: false })).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(choice({})).toBeUndefined();
    expect(fromHub({ tool_choice: "required" })).not.toHaveProperty("tool_choice");
    expect(fromHub({ tools: [{ type: "function", function: { name: "g", parameters: undefined as unknown as Json } }] }).tools).toEqual([{ name: "g", input_schema: { type: "object", properties: {} } }]);
  });

  it("turns reasoning_effort into a thinking budget below half of max_tokens, and drops temperature and top_p then", () => {
    expect(fromHub({ reasoning_effort: "low", max_tokens: 32000, temperature: 0.5 })).toMatchObject({ thinking: { type: "enabled", budget_tokens: 1024 } });
    expect(fromHub({ reasoning_effort: "low", max_tokens: 32000, temperature: 0.5, top_p: 0.9 })).not.toHaveProperty("temperature");
    expect(fromHub({ reasoning_effort: "low", max_tokens: 32000, top_p: 0.9 })).not.toHaveProperty("top_p");
    expect(fromHub({ reasoning_effort: "medium", max_tokens: 32000 }).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(fromHub({ reasoning_effort: "high", max_tokens: 64000 }).thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
    expect(fromHub({ reasoning_effort: "high", max_tokens: 32000 }).thinking).toEqual({ type: "enabled", budget_tokens: 16000 });
    expect(fromHub({ reasoning_effort: "high", max_tokens: 8000 }).thinking).toEqual({ type: "enabled", budget_tokens: 4000 });
    expect(fromHub({ reasoning_effort: "high", max_tokens: 2000 })).not.toHaveProperty("thinking");
    expect(fromHub({ reasoning_effort: "none" as "low" })).not.toHaveProperty("thinking");
    expect(fromHub({})).not.toHaveProperty("thinking");
  });

  it("sends images as base64 or URL image blocks, in user messages and tool results", () => {
    const out = fromHub({
      messages: [
        { role: "user", content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } }, { type: "image_url", image_url: { url: "https://example.test/a.png" } }] },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "shot", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "here" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] as unknown as string },
      ],
    });
    expect(out.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
          { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "shot", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "here" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] },
    ]);
  });

  it("never sends an empty text block or the reasoning of an assistant message", () => {
    const out = fromHub({
      messages: [
        { role: "user", content: "" },
        { role: "user", content: "hi" },
        { role: "assistant", content: "", reasoning_content: "hidden", reasoning: "hidden too" },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "" } }] },
        { role: "tool", tool_call_id: "c1", content: "" },
      ],
    });
    expect(out.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "f", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1" }] },
    ]);
    expect(JSON.stringify(out)).not.toMatch(/hidden|"text":""/);
  });

  it("asks for JSON through output_config.format, and drops json_object", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    expect(fromHub({ response_format: { type: "json_schema", json_schema: { name: "x", schema } } }).output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(fromHub({ response_format: { type: "json_object" } })).not.toHaveProperty("output_config");
  });
});

/** A messages reply with the given content and stop reason. */
const anthropicReply = (content: Json[], stop_reason = "end_turn", usage: Json = { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 5, cache_read_input_tokens: 100 }): Json => ({
  id: "msg_01X",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content,
  stop_reason,
  stop_sequence: null,
  usage,
});

describe("messages upstream: a messages reply becomes a chat reply", () => {
  it("joins text, turns tool_use into tool_calls and thinking into reasoning_content, and counts cached input as prompt", () => {
    const reply = messagesUpstream.replyToHub(
      anthropicReply(
        [
          { type: "thinking", thinking: "Plan.", signature: "EqQB" },
          { type: "redacted_thinking", data: "xyz" },
          { type: "text", text: "Reading " },
          { type: "text", text: "it." },
          { type: "tool_use", id: "toolu_01", name: "read_file", input: { absolute_path: "/a", limit: 3 } },
        ],
        "tool_use",
      ),
      testContext(),
    );
    expect(reply).toStrictEqual({
      id: "chatcmpl-msg_01X",
      object: "chat.completion",
      created: expect.any(Number),
      model: "client-model",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Reading it.",
            tool_calls: [{ id: "toolu_01", type: "function", function: { name: "read_file", arguments: '{"absolute_path":"/a","limit":3}' } }],
            reasoning_content: "Plan.",
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 125, completion_tokens: 7, total_tokens: 132, prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 5 } },
    });
  });

  it("maps every stop reason", () => {
    const finish = (stop: string) => messagesUpstream.replyToHub(anthropicReply([{ type: "text", text: "x" }], stop), testContext()).choices[0]?.finish_reason;
    expect(["end_turn", "stop_sequence", "pause_turn", "max_tokens", "tool_use", "refusal"].map(finish)).toEqual(["stop", "stop", "stop", "length", "stop", "content_filter"]);
    expect(messagesUpstream.replyToHub(anthropicReply([{ type: "tool_use", id: "t", name: "f", input: {} }], "end_turn"), testContext()).choices[0]?.finish_reason).toBe("tool_calls");
  });
});

/** Anthropic's SSE for a reply with thinking, text and two tool calls, as the API sends it (ping, signature, CRLF). */
const ANTHROPIC_SSE = [
  'event: message_start\r\ndata: {"type":"message_start","message":{"id":"msg_01S","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}',
  "event: ping\r\ndata: {\"type\": \"ping\"}",
  ': a comment line',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Plan."}}',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}',
  'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":0}',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading."}}',
  'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":1}',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_a","name":"read_file","input":{}}}',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"absolute_path\\":"}}',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\\"/a\\"}"}}',
  'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":2}',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_b","name":"list","input":{}}}',
  'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}',
  'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":3}',
  'event: message_delta\r\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":null,"output_tokens":42}}',
  'event: message_stop\r\ndata: {"type":"message_stop"}',
].join("\r\n\r\n") + "\r\n\r\n";

function hubItemsOf(sse: string): HubStreamItem[] {
  const stream = messagesUpstream.streamToHub(testContext());
  return [...decodeEvents(sse).flatMap((event) => stream.push(event)), ...stream.finish()];
}

describe("messages upstream: an Anthropic stream becomes chat chunks", () => {
  const chunk = (delta: Json, finish: string | null = null, usage?: Json) => ({
    type: "chunk",
    chunk: { id: "chatcmpl-msg_01S", object: "chat.completion.chunk", created: expect.any(Number), model: "client-model", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) },
  });

  it("streams role, reasoning, text and tool calls indexed by tool block, then the finish chunk with usage", () => {
    expect(hubItemsOf(ANTHROPIC_SSE)).toStrictEqual([
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning_content: "Plan." }),
      chunk({ content: "Reading." }),
      chunk({ tool_calls: [{ index: 0, id: "toolu_a", type: "function", function: { name: "read_file", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"absolute_path":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"/a"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "toolu_b", type: "function", function: { name: "list", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
      chunk({}, "tool_calls", { prompt_tokens: 125, completion_tokens: 42, total_tokens: 167, prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 5 } }),
    ]);
  });

  it("ends with an error item on `event: error`", () => {
    const sse = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    expect(hubItemsOf(sse).at(-1)).toEqual({ type: "error", error: { status: 502, type: "api_error", message: "Overloaded", param: null, code: "upstream_error" } });
  });

  it("reads the same as the JSON reply for a chat client (the OpenAI SDK accumulates the stream)", async () => {
    const items = hubItemsOf(ANTHROPIC_SSE);
    const sse = encodeEvents([...items.map((item) => ({ data: (item as { chunk: HubChunk }).chunk })), { data: "[DONE]", raw: true }]);
    const openai = new OpenAI({ apiKey: "test", baseURL: "http://sdk.test/v1", fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }) });
    const final = await openai.chat.completions.stream({ model: "client-model", messages: [{ role: "user", content: "go" }] }).finalChatCompletion();
    const reply = messagesUpstream.replyToHub(
      anthropicReply(
        [
          { type: "thinking", thinking: "Plan.", signature: "EqQB" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_a", name: "read_file", input: { absolute_path: "/a" } },
          { type: "tool_use", id: "toolu_b", name: "list", input: {} },
        ],
        "tool_use",
      ),
      testContext(),
    );
    const message = final.choices[0]!.message;
    expect({ content: message.content, tool_calls: message.tool_calls?.map(({ id, type, function: fn }) => ({ id, type, function: fn })), finish: final.choices[0]!.finish_reason }).toEqual({
      content: reply.choices[0]!.message.content,
      tool_calls: reply.choices[0]!.message.tool_calls,
      finish: reply.choices[0]!.finish_reason,
    });
    expect((message as unknown as Json).reasoning_content).toBe("Plan.");
  });
});
