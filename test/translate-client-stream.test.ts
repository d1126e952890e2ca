import { describe, expect, it } from "vitest";
import { FORMATS, type Format } from "../src/formats/index.js";
import type { ClientEvent, ErrorFields, HubToClientStream } from "../src/translate/types.js";
import { checkedStream, deltaItem, testContext } from "./helpers/translate.js";
import { clientOf } from "./helpers/format-translators.js";

/**
 * The contract of `HubToClientStream` that the server's writer relies on, for every client format (the messages,
 * responses and gemini translators share one driver, `client-stream.ts`; chat relabels chunks): the stream opens
 * once, before anything else; its end (`finish`, `fail`, an error inside the upstream stream) comes once; nothing
 * follows it, whatever is called after.
 */

const ERROR: ErrorFields = { status: 502, type: "api_error", message: "upstream broke", param: null, code: "upstream_error" };
/** What each format's stream opens with and ends with, by event type (`data.type`, or the chat/gemini body's shape). */
const OPENING: Record<Format, string[]> = { messages: ["message_start", "ping"], responses: ["response.created", "response.in_progress"], gemini: [], chat: [] };

const kind = (event: ClientEvent): string => {
  const data = event.data as { type?: unknown; error?: unknown };
  if (typeof data === "string") return data;
  if (typeof data.type === "string") return data.type;
  return data.error !== undefined ? "error" : "chunk";
};
const FAILURE: Record<Format, string> = { messages: "error", responses: "response.failed", gemini: "error", chat: "error" };

const formats = FORMATS.map((format) => format.name);
const open = (format: Format): HubToClientStream => checkedStream(clientOf(format), {}, testContext());

describe.each(formats)("a %s client stream", (format) => {
  it("opens once, before the first chunk's events, whether start() or push() comes first", () => {
    const started = open(format);
    expect(started.start().map(kind)).toEqual(OPENING[format]);
    expect(started.start()).toEqual([]);
    const pushed = open(format).push(deltaItem({ content: "Hi" })).map(kind);
    expect(pushed.slice(0, OPENING[format].length)).toEqual(OPENING[format]);
    expect(pushed.slice(OPENING[format].length)).not.toContain(OPENING[format][0] ?? "none");
  });

  it("ends once on finish(): nothing after it, whatever is called", () => {
    const stream = open(format);
    stream.push(deltaItem({ content: "Hi" }, "stop"));
    expect(stream.finish().length).toBeGreaterThan(0);
    expect([...stream.finish(), ...stream.push(deltaItem({ content: "late" })), ...stream.fail(ERROR), ...stream.keepAlive(), ...stream.start()]).toEqual([]);
  });

  it("ends with its error event on fail(), opened first if nothing was sent, and nothing after it", () => {
    const stream = open(format);
    const events = stream.fail(ERROR).map(kind);
    expect(events).toEqual([...OPENING[format], FAILURE[format]]);
    expect([...stream.fail(ERROR), ...stream.finish(), ...stream.push(deltaItem({ content: "late" })), ...stream.keepAlive()]).toEqual([]);
  });

  it("ends with its error event when the upstream stream reports an error, and nothing after it", () => {
    const stream = open(format);
    stream.start();
    stream.push(deltaItem({ content: "partial" }));
    const events = stream.push({ type: "error", error: ERROR }).map(kind);
    expect(events.at(-1)).toBe(FAILURE[format]);
    expect([...stream.push(deltaItem({ content: "late" })), ...stream.finish()]).toEqual([]);
  });
});

describe("events written from a template", () => {
  // Every character class JSON.stringify escapes or passes: quotes, backslashes, line breaks, control characters,
  // U+2028, astral characters, a lone surrogate (written as \ud800), and text that looks like markup or JSON.
  const HOSTILE = ['say "hi"', "back\\slash", "line\nbreak\r\t", "\u0000\u0001\u001f", "\u2028\u2029", "😀 中文", "\ud800 lone", '</script>{"a":1}', ""];
  const TOOL_ARGS = ['{"cmd":"echo \\"', 'hi\\"\\n', '","path":"C:\\\\x"}'];

  it.each(formats)("%s: a template's JSON is JSON.stringify's, whatever the text (checkedStream throws when not)", (format) => {
    const stream = open(format);
    const events = [
      ...stream.push(deltaItem({ reasoning_content: "think \"deep\"\n" })),
      ...HOSTILE.flatMap((text) => stream.push(deltaItem({ content: text }))),
      ...stream.push(deltaItem({ tool_calls: [{ index: 0, id: "call_\"1", type: "function", function: { name: "run", arguments: TOOL_ARGS[0]! } }] })),
      ...TOOL_ARGS.slice(1).flatMap((args) => stream.push(deltaItem({ tool_calls: [{ index: 0, function: { arguments: args } }] }))),
      ...stream.push(deltaItem({}, "tool_calls")),
      ...stream.finish(),
    ];
    const text = JSON.stringify(events);
    for (const piece of HOSTILE.filter(Boolean)) expect(text).toContain(JSON.stringify(piece).slice(1, -1));
  });
});
