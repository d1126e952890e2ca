import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { encodeEvents } from "../src/sse/sse.js";
import type { HubChunk, HubReply, Json } from "../src/translate/hub.js";
import { messagesClient } from "../src/formats/messages/translators.js";
import type { HubStreamItem, ReplyHints } from "../src/translate/types.js";
import { checkedStream, deltaItem, hubReply, testContext, testSeal, usageItem } from "./helpers/translate.js";
import { NO_USAGE, USAGE, USAGE_AS_MESSAGES, assistant, body, hubOf, streamed, tools, user } from "./helpers/translate-messages.js";

/** Chat replies as messages replies (`messagesClient.replyFromHub`), and the Anthropic SDK reading the stream of the same answer as the same message. */

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
      usage: USAGE_AS_MESSAGES,
    });
  });

  it("never emits an empty or blank text block", () => {
    const reply = messagesClient.replyFromHub(hubReply({ content: "" }), {}, testContext());
    expect(reply.content).toEqual([]);
    const blank = messagesClient.replyFromHub(hubReply({ content: "\n\n", tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: "{}" } }] }, "tool_calls"), {}, testContext());
    expect(blank.content).toEqual([{ type: "tool_use", id: "c1", name: "Bash", input: {} }]);
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

  it("repairs tool arguments only where the repair is unambiguous, else gives the raw text under INVALID_JSON, never throws (items 2 and 3)", () => {
    const inputs = (args: string) =>
      (messagesClient.replyFromHub(hubReply({ tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: args } }] }, "tool_calls"), {}, testContext()).content as Json[])[0]?.input;
    expect(inputs('{"command": "ls -la"')).toEqual({ command: "ls -la" });
    expect(inputs("{'command': 'pwd',}")).toEqual({ INVALID_JSON: "{'command': 'pwd',}" });
    expect(inputs("not json at all")).toEqual({ INVALID_JSON: "not json at all" });
    expect(inputs("[1,2]")).toEqual({ INVALID_JSON: "[1,2]" });
    expect(inputs("")).toEqual({});
  });

  it("leaves out a call whose arguments a length cut left unfinished, and stops for max_tokens (item 8)", () => {
    const reply = messagesClient.replyFromHub(
      hubReply({ content: "Running.", tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }, { id: "c2", type: "function", function: { name: "Bash", arguments: '{"command": "rm' } }] }, "length"),
      {},
      testContext(),
    );
    expect(reply.stop_reason).toBe("max_tokens");
    expect((reply.content as Json[]).map((block) => block.id ?? block.type)).toEqual(["text", "c1"]);
  });

  it("makes a toolu_ id for a call the upstream sent without one (item 14)", () => {
    const reply = messagesClient.replyFromHub(hubReply({ tool_calls: [{ type: "function", function: { name: "Bash", arguments: "{}" } } as never] }, "tool_calls"), {}, testContext());
    expect((reply.content as Json[])[0]!.id).toBe("toolu_1");
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

  it("gives a reasoning-only answer (DeepSeek V4-flash) as text too: Claude Code shows no thinking block as an answer", () => {
    const reply = messagesClient.replyFromHub(hubReply({ content: "", reasoning_content: "It is 4." }), {}, testContext());
    expect(reply.content).toStrictEqual([
      { type: "thinking", thinking: "It is 4.", signature: testSeal.sign("It is 4.", "reasoning_content") },
      { type: "text", text: "It is 4." },
    ]);
    expect(reply.stop_reason).toBe("end_turn");
  });

  it("reads <think> tags at the start of the content as a signed thinking block, the rest as the text", () => {
    const reply = messagesClient.replyFromHub(hubReply({ content: "<think>\nSmall sum.\n</think>\n\nIt is 4." }), {}, testContext());
    expect(reply.content).toStrictEqual([
      { type: "thinking", thinking: "\nSmall sum.\n", signature: testSeal.sign("\nSmall sum.\n", "reasoning_content") },
      { type: "text", text: "It is 4." },
    ]);
  });

  it("signs reasoning that came as `reasoning` so that it goes back under `reasoning` next turn", () => {
    const reply = messagesClient.replyFromHub(hubReply({ reasoning: "Think.", content: "Answer." }), {}, testContext());
    const content = reply.content as Json[];
    const next = hubOf(body([user("q"), assistant(content), user("again")]));
    expect(next.messages[1]).toEqual({ role: "assistant", content: "Answer.", reasoning: "Think." });
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
    // DeepSeek V4-flash: the whole answer in reasoning_content, content empty.
    [{ role: "assistant", content: "", reasoning_content: "It is 4." }, [deltaItem({ role: "assistant", content: "" }), deltaItem({ reasoning_content: "It is " }), deltaItem({ reasoning_content: "4." }), deltaItem({}, "stop")]],
    // A model behind a server without a reasoning parser: its reasoning in <think> tags at the start of content.
    [{ role: "assistant", content: "<think>Small sum.</think>\n\nIt is 4." }, [deltaItem({ content: "<thi" }), deltaItem({ content: "nk>Small " }), deltaItem({ content: "sum.</think>\n" }), deltaItem({ content: "\nIt is 4." }), deltaItem({}, "stop")]],
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
    const stream = checkedStream(messagesClient, {}, testContext());
    const sse = encodeEvents([...stream.start(), ...stream.push(deltaItem({ content: "a" })), ...stream.fail({ status: 502, type: "api_error", message: "boom", param: null, code: null })]);
    await expect(anthropicOver(sse).messages.stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).finalMessage()).rejects.toThrow(/boom/);
  });
});
