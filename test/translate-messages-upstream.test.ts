import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { decodeEvents, encodeEvents } from "../src/sse/sse.js";
import type { HubChunk, HubRequest, Json } from "../src/translate/hub.js";
import { messagesUpstream } from "../src/formats/messages/translators.js";
import type { HubStreamItem } from "../src/translate/types.js";
import { upstreamEventOf } from "../src/translate/upstream-event.js";
import { testContext } from "./helpers/translate.js";

/** The upstream side: chat requests as messages requests for an Anthropic-only upstream, and its replies and streams back as chat. */

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

  it("never sends an empty or blank text block (a local model's \"\\n\\n\" before its calls) or the reasoning of an assistant message", () => {
    const out = fromHub({
      messages: [
        { role: "user", content: "" },
        { role: "user", content: [{ type: "text", text: "hi" }, { type: "text", text: " \n" }] },
        { role: "assistant", content: "", reasoning_content: "hidden", reasoning: "hidden too" },
        { role: "assistant", content: "\n\n", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "" } }] },
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

  it("keeps a call id Anthropic accepts and gives any other (Kimi's functions.Bash:0) one valid form, the same for the call and its result", () => {
    const history = (id: string): Partial<HubRequest> => ({
      messages: [
        { role: "user", content: "list files" },
        { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }] },
        { role: "tool", tool_call_id: id, content: "a.txt" },
      ],
    });
    const ids = (id: string) => {
      const [, call, result] = fromHub(history(id)).messages as { content: { id?: string; tool_use_id?: string }[] }[];
      return [call!.content[0]!.id, result!.content[0]!.tool_use_id];
    };
    expect(ids("call_0-AbC")).toEqual(["call_0-AbC", "call_0-AbC"]);
    const [kimi, kimiResult] = ids("functions.Bash:0");
    expect(kimi).toMatch(/^functions_Bash_0_[0-9a-f]{8}$/);
    expect(kimiResult).toBe(kimi);
    // the next turn sends the same bytes; a different invalid id stays apart
    expect(ids("functions.Bash:0")[0]).toBe(kimi);
    expect(ids("functions:Bash.0")[0]).not.toBe(kimi);
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
  return [...decodeEvents(sse).map(upstreamEventOf).flatMap((event) => (typeof event === "object" ? stream.push(event) : [])), ...stream.finish()];
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

  it("takes a tool input that came whole in content_block_start (a compatible server without input_json_delta), once (table E row 3)", () => {
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3}}}',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.txt"}}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\":\\"a.txt\\"}"}}',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}',
    ].join("\n\n") + "\n\n";
    const calls = hubItemsOf(sse).flatMap((item) => (item.type === "chunk" ? (item.chunk.choices[0]?.delta.tool_calls ?? []) : []));
    expect(calls).toEqual([{ index: 0, id: "toolu_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }]);
  });

  it("ends with an error item on `event: error`, the upstream's error object kept beside it", () => {
    const sse = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    expect(hubItemsOf(sse).at(-1)).toEqual({
      type: "error",
      error: { status: 502, type: "api_error", message: "Overloaded", param: null, code: "upstream_error" },
      detail: { type: "overloaded_error", message: "Overloaded" },
    });
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
