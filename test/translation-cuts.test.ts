import { describe, expect, it } from "vitest";
import { encodeEvents } from "../src/sse/sse.js";
import { type Format } from "../src/formats/index.js";
import { scriptStream } from "./helpers/chat-script.js";
import { chatSse, chunk, messagesSse } from "./helpers/fake-upstream.js";
import { translateStream } from "./helpers/translate.js";
import { clientOf, upstreamOf } from "./helpers/format-translators.js";

/**
 * Every translated stream, fed the upstream's bytes cut at every offset (and across a UTF-8 character), gives the
 * client exactly the events it gives when the bytes come whole: the decoder holds what is incomplete, and each
 * translator's state survives any split.
 */

const chatStream = Buffer.from(
  (scriptStream({
    reasoning: "Think héllo 😀 first.",
    text: "Voilà: ünïcode 😀 text.",
    toolCalls: [
      { id: "call_1", name: "exec_command", args: { cmd: "ls -la", note: "é" } },
      { id: "call_2", name: "exec_command", args: { cmd: "pwd" } },
    ],
  }) as { chunks: string[] }).chunks.join(""),
);

const messagesStream = Buffer.from(
  messagesSse([
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 9, output_tokens: 1 } } } as never,
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } as never,
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Grüße 😀 " } } as never,
    { type: "content_block_stop", index: 0 } as never,
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "read", input: {} } } as never,
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":"é.txt"}' } } as never,
    { type: "content_block_stop", index: 1 } as never,
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } } as never,
    { type: "message_stop" } as never,
  ]),
);

const routes: [client: Format, upstream: Format, bytes: Buffer][] = [
  ["messages", "chat", chatStream],
  ["responses", "chat", chatStream],
  ["gemini", "chat", chatStream],
  ["chat", "messages", messagesStream],
];

describe.each(routes)("%s client on a %s upstream", (clientFormat, upstreamFormat, bytes) => {
  const client = clientOf(clientFormat);
  const upstream = upstreamOf(upstreamFormat);
  const whole = translateStream(client, upstream, [bytes]);

  it("translates the whole stream into a non-trivial event sequence in the client's grammar", () => {
    expect(whole.length).toBeGreaterThan(5);
    expect(encodeEvents(whole)).toContain("😀");
  });

  it("gives the same events for a cut at every byte offset", () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const events = translateStream(client, upstream, [bytes.subarray(0, cut), bytes.subarray(cut)]);
      if (JSON.stringify(events) !== JSON.stringify(whole)) expect(events, `cut at byte ${cut}`).toEqual(whole);
    }
  });

  it("gives the same events fed one byte at a time", () => {
    expect(translateStream(client, upstream, [...bytes].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });
});

/**
 * Issue 37's hostile chat stream: a byte-order mark first (item 1), Mistral's list of text parts (item 4), a second
 * choice (item 6), reasoning after the text (item 9), arguments that turn invalid after a valid start (item 2), a
 * call without an id whose arguments end in a comma (items 14 and 2), and a chunk after `[DONE]` (item 7); then one
 * cut by the output limit in the middle of a call (item 8).
 */
const toolPiece = (call: Record<string, unknown>, finish: string | null = null) => chunk({ tool_calls: [{ index: 0, type: "function", ...call }] }, finish);
const hostileStream = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    chatSse([
      chunk({ role: "assistant", reasoning_content: "Think first." }),
      chunk({ content: [{ type: "text", text: "Héllo " }, { type: "text", text: "wörld 😀" }] }),
      { ...chunk({}), choices: [{ index: 1, delta: { content: "ONE" }, finish_reason: null }] },
      chunk({ reasoning_content: "Think again." }),
      toolPiece({ id: "call_1", function: { name: "Bash", arguments: '{"command": "ls", ' } }),
      toolPiece({ function: { arguments: '"force": True}' } }),
      chunk({ tool_calls: [{ index: 1, type: "function", function: { name: "Read", arguments: '{"path": "é.txt",' } }] }),
      chunk({}, "tool_calls"),
      { ...chunk({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } },
    ]) + chatSse([chunk({ content: "AFTER" })], false),
  ),
]);
const lengthStream = Buffer.from(
  chatSse([chunk({ role: "assistant", content: "Listing 😀" }), toolPiece({ id: "call_1", function: { name: "Bash", arguments: '{"command": "ls' } }), toolPiece({ function: { arguments: " -la" } }, "length")]),
);

describe.each(["messages", "responses", "gemini"] as const)("%s client on issue 37's hostile chat upstream", (clientFormat) => {
  const client = clientOf(clientFormat);
  for (const [name, bytes] of [
    ["hostile", hostileStream],
    ["length-cut", lengthStream],
  ] as const) {
    const whole = translateStream(client, upstreamOf("chat"), [bytes]);

    it(`gives the same events for the ${name} stream cut at every byte offset (the byte-order mark's bytes too)`, () => {
      for (let cut = 1; cut < bytes.length; cut++) {
        const events = translateStream(client, upstreamOf("chat"), [bytes.subarray(0, cut), bytes.subarray(cut)]);
        if (JSON.stringify(events) !== JSON.stringify(whole)) expect(events, `cut at byte ${cut}`).toEqual(whole);
      }
    });
  }

  it("keeps the first event, the list's text and the truth of the arguments, and nothing of the second choice or after [DONE]", () => {
    const text = encodeEvents(translateStream(client, upstreamOf("chat"), [hostileStream]));
    expect(text).toContain("Héllo ");
    expect(text).toContain("wörld 😀");
    expect(text).toContain("INVALID_JSON");
    expect(text).not.toContain("ONE");
    expect(text).not.toContain("AFTER");
  });
});

describe.each(routes.filter(([, upstream]) => upstream === "chat"))("%s client on a chat upstream that writes SSE as OpenRouter does", (clientFormat) => {
  it("gives the events of a plain stream: comments, data: without a space, CRLF, no [DONE] (table E row 18)", () => {
    const client = clientOf(clientFormat);
    const events = chatStream
      .toString("utf8")
      .split("\n\n")
      .filter((event) => event && event !== "data: [DONE]");
    const openRouter = `: OPENROUTER PROCESSING\r\n\r\n${events.map((event) => `${event.replace(/^data: /, "data:")}\r\n\r\n: OPENROUTER PROCESSING\r\n\r\n`).join("")}`;
    expect(openRouter).not.toContain("[DONE]");
    expect(translateStream(client, upstreamOf("chat"), [Buffer.from(openRouter)])).toEqual(translateStream(client, upstreamOf("chat"), [chatStream]));
  });
});
