import { describe, expect, it } from "vitest";
import type { Json } from "../src/translate/hub.js";
import { messagesClient } from "../src/formats/messages/translators.js";
import type { MessagesHints } from "../src/formats/messages/request-to-hub.js";
import type { HubStreamItem } from "../src/translate/types.js";
import { checkedStream, deltaItem, testContext, testSeal, usageItem } from "./helpers/translate.js";
import {
  NO_USAGE,
  USAGE,
  USAGE_AS_MESSAGES,
  blockDelta,
  blockStart,
  blockStop,
  closing,
  ev,
  expectGrammar,
  json,
  opening,
  streamed,
  text,
  textStart,
  thinking,
  thinkingStart,
  toolInputs,
  toolStart,
  tools,
} from "./helpers/translate-messages.js";

/** Chat streams as Anthropic's event sequence (`messagesClient.streamFromHub`, research B2). */

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
      // A key waits for its value, the object's closing brace for the block's end (item 2: nothing can follow it).
      json(2, "{"),
      json(2, '"file_path":"/a"'),
      json(2, "}"),
      blockStop(2),
      toolStart(3, "call_b", "Read"),
      json(3, '{"file_path":"/b"'),
      json(3, "}"),
      blockStop(3),
      ...closing("tool_use", USAGE_AS_MESSAGES),
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
      json(1, '{"command":"ls"'),
      json(1, "}"),
      blockStop(1),
      textStart(2),
      text(2, "Then more."),
      blockStop(2),
      ...closing("tool_use"),
    ]);
    expectGrammar(events);
  });

  it("leaves out reasoning that comes back after the text: thinking comes first in a message (item 9)", () => {
    const events = streamed([deltaItem({ reasoning: "a" }), deltaItem({ content: "b" }), deltaItem({ reasoning: "c" }), deltaItem({ content: "d" }), deltaItem({}, "stop")]);
    expect(events.slice(2)).toStrictEqual([
      blockStart(0, { type: "thinking", thinking: "" }),
      thinking(0, "a"),
      blockDelta(0, { type: "signature_delta", signature: testSeal.sign("a", "reasoning") }),
      blockStop(0),
      textStart(1),
      text(1, "b"),
      text(1, "d"),
      blockStop(1),
      ...closing("end_turn"),
    ]);
  });

  it("keeps text and tool calls in order, one block at a time, and the thinking first, when a chat upstream interleaves reasoning (item 9)", () => {
    const events = streamed([
      deltaItem({ reasoning_content: "List first." }),
      tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }]),
      deltaItem({ reasoning_content: "Now read it." }),
      deltaItem({ content: "Reading." }),
      tools([{ index: 1, id: "call_2", function: { name: "Read", arguments: '{"file_path":"/a"}' } }]),
      deltaItem({}, "tool_calls"),
    ]);
    expectGrammar(events);
    const starts = events.filter((event) => (event.data as Json).type === "content_block_start").map((event) => ((event.data as Json).content_block as Json).type);
    expect(starts).toEqual(["thinking", "tool_use", "text", "tool_use"]);
    expect(toolInputs(events)).toEqual([{ command: "ls" }, { file_path: "/a" }]);
    expect(events.at(-2)).toStrictEqual(closing("tool_use")[0]);
  });

  it("streams the first of two interleaved calls as it comes; the second waits until the first is whole, then gets its buffered arguments and the rest as they come", () => {
    const events = streamed([
      tools([{ index: 0, id: "call_1", function: { name: "Read", arguments: '{"file_path":' } }]),
      tools([{ index: 1, id: "call_2", function: { name: "Read", arguments: '{"file_path":' } }]),
      tools([{ index: 0, function: { arguments: '"/a"}' } }]),
      tools([{ index: 1, function: { arguments: '"/b"' } }]),
      tools([{ index: 1, function: { arguments: "}" } }], "tool_calls"),
    ]);
    expect(events.slice(2, -2)).toStrictEqual([
      toolStart(0, "call_1", "Read"),
      json(0, "{"),
      json(0, '"file_path":"/a"'),
      json(0, "}"),
      blockStop(0),
      toolStart(1, "call_2", "Read"),
      json(1, "{"),
      json(1, '"file_path":"/b"'),
      json(1, "}"),
      blockStop(1),
    ]);
  });

  it("closes a reasoning-only answer (DeepSeek V4-flash) with the reasoning as a text block after the signed thinking block", () => {
    const events = streamed([deltaItem({ role: "assistant", content: "" }), deltaItem({ reasoning_content: "It is " }), deltaItem({ reasoning_content: "4." }), deltaItem({}, "stop"), usageItem(USAGE)]);
    expect(events.slice(2)).toStrictEqual([
      thinkingStart(0),
      thinking(0, "It is "),
      thinking(0, "4."),
      blockDelta(0, { type: "signature_delta", signature: testSeal.sign("It is 4.", "reasoning_content") }),
      blockStop(0),
      textStart(1),
      text(1, "It is 4."),
      blockStop(1),
      ...closing("end_turn", USAGE_AS_MESSAGES),
    ]);
  });

  it("streams <think> tags at the start of the content as a thinking block as they come, then the answer as text", () => {
    const events = streamed([deltaItem({ content: "<thi" }), deltaItem({ content: "nk>Small " }), deltaItem({ content: "sum.</think>\n\n" }), deltaItem({ content: "It is 4." }), deltaItem({}, "stop")]);
    expect(events.slice(2)).toStrictEqual([
      thinkingStart(0),
      thinking(0, "Small "),
      thinking(0, "sum."),
      blockDelta(0, { type: "signature_delta", signature: testSeal.sign("Small sum.", "reasoning_content") }),
      blockStop(0),
      textStart(1),
      text(1, "It is 4."),
      blockStop(1),
      ...closing("end_turn"),
    ]);
  });

  it("reads OpenRouter's reasoning_details when it carries the reasoning alone", () => {
    const events = streamed([deltaItem({ reasoning: null, reasoning_details: [{ type: "reasoning.text", text: "Hmm." }] }), deltaItem({ content: "Yes." }, "stop")]);
    expect(events.slice(2, 4)).toStrictEqual([thinkingStart(0), thinking(0, "Hmm.")]);
  });

  it("opens no text block for white space alone (\"\\n\\n\" before a call), and sends white space that precedes text with it", () => {
    const blankBeforeCall = streamed([deltaItem({ content: "\n\n" }), tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"ls"}' } }], "tool_calls")]);
    expect(blankBeforeCall.slice(2)).toStrictEqual([toolStart(0, "call_1", "Bash"), json(0, '{"command":"ls"'), json(0, "}"), blockStop(0), ...closing("tool_use")]);
    const blankThenText = streamed([deltaItem({ content: " " }), deltaItem({ content: "\n" }), deltaItem({ content: "Hi" }), deltaItem({ content: " " }), deltaItem({}, "stop")]);
    expect(blankThenText.slice(2)).toStrictEqual([textStart(0), text(0, " \nHi"), text(0, " "), blockStop(0), ...closing("end_turn")]);
  });

  it("ignores empty text and reasoning placeholders instead of opening empty blocks", () => {
    const events = streamed([
      deltaItem({ role: "assistant", content: "", reasoning_content: "" }),
      deltaItem({ content: null, reasoning_content: null }),
      tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"pwd"}' } }]),
      deltaItem({ content: "" }, "tool_calls"),
    ]);
    expect(events.slice(2)).toStrictEqual([toolStart(0, "call_1", "Bash"), json(0, '{"command":"pwd"'), json(0, "}"), blockStop(0), ...closing("tool_use")]);
  });

  it("ends an empty upstream stream by the grammar, message_start first", () => {
    expect(streamed([])).toStrictEqual([...opening(), ...closing("end_turn")]);
    const stream = checkedStream(messagesClient, { inputTokens: 7 }, testContext());
    expect(stream.finish()).toStrictEqual([...opening(7), ...closing("end_turn", NO_USAGE(7))]);
    expect(stream.finish()).toEqual([]);
  });

  it("ends a stream with no finish reason and no [DONE] by the grammar, a string cut short not guessed at (item 2)", () => {
    const events = streamed([deltaItem({ content: "partial" }), tools([{ index: 0, id: "call_1", function: { name: "Bash", arguments: '{"command":"l' } }])]);
    const rest = `","INVALID_JSON":${JSON.stringify('{"command":"l')}}`;
    expect(events.slice(2)).toStrictEqual([textStart(0), text(0, "partial"), blockStop(0), toolStart(1, "call_1", "Bash"), json(1, '{"command":"l'), json(1, rest), blockStop(1), ...closing("tool_use")]);
    expect(toolInputs(events)).toEqual([{ command: "l", INVALID_JSON: '{"command":"l' }]);
  });

  it("ends a call cut by the output limit with the pieces that came, leaves out a waiting call that never completed, and stops for max_tokens (item 8)", () => {
    const events = streamed([
      tools([{ index: 0, id: "call_1", function: { name: "Read", arguments: '{"file_path":"/a' } }]),
      tools([{ index: 1, id: "call_2", function: { name: "Read", arguments: '{"file_path":"/b"}' } }]),
      tools([{ index: 2, id: "call_3", function: { name: "Read", arguments: '{"file_path":"/c' } }]),
      tools([{ index: 0, function: { arguments: "bc" } }], "length"),
    ]);
    expect(events.slice(2)).toStrictEqual([
      toolStart(0, "call_1", "Read"),
      json(0, '{"file_path":"/a'),
      json(0, "bc"),
      blockStop(0),
      toolStart(1, "call_2", "Read"),
      json(1, '{"file_path":"/b"'),
      json(1, "}"),
      blockStop(1),
      ...closing("max_tokens"),
    ]);
  });

  it("makes a toolu_ id for a call that came without one (item 14)", () => {
    const events = streamed([tools([{ index: 0, function: { name: "Bash", arguments: "{}" } }], "tool_calls")]);
    expect(events[2]).toStrictEqual(toolStart(0, "toolu_1", "Bash"));
  });

  it("holds message_delta until finish() so that usage after the finish reason reaches it", () => {
    const stream = checkedStream(messagesClient, {}, testContext());
    stream.start();
    expect(stream.push(deltaItem({ content: "Hi" }, "stop"))).toStrictEqual([textStart(0), text(0, "Hi")]);
    expect(stream.push(usageItem(USAGE))).toEqual([]);
    expect(stream.finish()).toStrictEqual([blockStop(0), ...closing("end_turn", USAGE_AS_MESSAGES)]);
  });

  it("takes usage that rides on the finish chunk too", () => {
    expect(streamed([deltaItem({ content: "Hi" }, "stop", USAGE)]).slice(-2)).toStrictEqual(closing("end_turn", USAGE_AS_MESSAGES));
  });

  it("ends with one Anthropic-shaped error event and nothing after it when the upstream reports an error mid-stream", () => {
    const stream = checkedStream(messagesClient, {}, testContext());
    const error = { status: 502, type: "api_error", message: "upstream overloaded", param: null, code: "upstream_error" };
    const events = [...stream.start(), ...stream.push(deltaItem({ content: "Hal" })), ...stream.push({ type: "error", error }), ...stream.push(deltaItem({ content: "f" })), ...stream.finish(), ...stream.keepAlive()];
    expect(events).toStrictEqual([...opening(), textStart(0), text(0, "Hal"), { event: "error", data: { type: "error", error: { type: "api_error", message: "upstream overloaded" } } }]);
  });

  it("sends message_start before the error event when the upstream fails before any chunk", () => {
    const stream = checkedStream(messagesClient, { inputTokens: 12 }, testContext());
    const error = { status: 504, type: "timeout_error", message: "The upstream went silent for 300 s.", param: null, code: "upstream_timeout" };
    expect(stream.fail(error)).toStrictEqual([...opening(12), { event: "error", data: { type: "error", error: { type: "timeout_error", message: "The upstream went silent for 300 s." } } }]);
    expect(stream.fail(error)).toEqual([]);
    expect(stream.finish()).toEqual([]);
  });

  it("keeps a silent stream alive with pings, opening it first if needed", () => {
    const stream = checkedStream(messagesClient, {}, testContext());
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
    const hints: MessagesHints = { toolNames: new Map([["mcp_docs_search_1a2b3c4d", { name: "mcp.docs/search" }]]) };
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
      [
        "two parallel calls whose argument pieces interleave",
        [
          tools([{ index: 0, id: "call_1", function: { name: "Read", arguments: '{"file_path":' } }]),
          tools([{ index: 1, id: "call_2", function: { name: "Read", arguments: '{"file_path":' } }]),
          tools([{ index: 0, function: { arguments: '"/a"}' } }]),
          tools([{ index: 1, function: { arguments: '"/b"}' } }]),
        ],
        [{ file_path: "/a" }, { file_path: "/b" }],
      ],
      [
        "text while a call still waits: both calls close before the text block, indexes in order",
        [
          tools([{ index: 0, id: "call_1", function: { name: "TodoRead", arguments: "" } }]),
          tools([{ index: 1, id: "call_2", function: { name: "Read", arguments: '{"file_path":"/b"}' } }]),
          deltaItem({ content: "Reading." }),
        ],
        [{}, { file_path: "/b" }],
      ],
      [
        "two calls announced before either's arguments",
        [
          tools([{ index: 0, id: "call_1", function: { name: "Read", arguments: "" } }, { index: 1, id: "call_2", function: { name: "Bash", arguments: "" } }]),
          tools([{ index: 0, function: { arguments: '{"file_path":"/a"}' } }, { index: 1, function: { arguments: '{"command":"ls"}' } }]),
        ],
        [{ file_path: "/a" }, { command: "ls" }],
      ],
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

    it("reads the first choice alone: a second one is another answer (item 6)", () => {
      const item: HubStreamItem = { type: "chunk", chunk: { choices: [{ index: 0, delta: { content: "zero" }, finish_reason: null }, { index: 1, delta: { content: "ONE" }, finish_reason: "length" }] } };
      expect(streamed([item, deltaItem({}, "stop")]).slice(2)).toStrictEqual([textStart(0), text(0, "zero"), blockStop(0), ...closing("end_turn")]);
    });
  });
});
