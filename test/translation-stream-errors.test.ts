import { describe, expect, it } from "vitest";
import { type Format } from "../src/formats/index.js";
import type { ClientEvent } from "../src/translate/index.js";
import { chatSse, chunk, messagesSse } from "./helpers/fake-upstream.js";
import { translateStream } from "./helpers/translate.js";
import { clientOf, upstreamOf } from "./helpers/format-translators.js";

/**
 * An error inside an upstream stream (SPEC 10 rule 5; research B2 invariant 11, table E rows 16 and 17): the chat
 * `{"error": ...}` chunk, OpenRouter's `finish_reason: "error"`, Anthropic's `event: error`. Each ends the client's
 * stream with its own format's error event, carrying the upstream's words, after what was already said and with
 * nothing after it (not even the `[DONE]` or `message_stop` a normal end would bring).
 */

/** The error event each client format ends with, as the message it carries. */
const errorMessage: Record<Format, (event: ClientEvent) => string | undefined> = {
  messages: (event) => (event.event === "error" ? (event.data as { error: { type: string; message: string } }).error.message : undefined),
  responses: (event) => (event.event === "response.failed" ? (event.data as { response: { error: { message: string } } }).response.error.message : undefined),
  gemini: (event) => (event.data as { error?: { message: string } }).error?.message,
  chat: (event) => (event.data as { error?: { message: string } }).error?.message,
};

const before = chunk({ role: "assistant", content: "Let me " });
/** OpenRouter's mid-stream error: an `error` object beside a choice that finishes with `error`. */
const OPENROUTER_ERROR = { ...chunk({ content: "" }, "error"), provider: "openai", error: { code: "server_error", message: "Provider disconnected unexpectedly" } };

const chatCases: [name: string, events: unknown[], message: string][] = [
  ["an {\"error\": ...} chunk", [before, { error: { message: "Rate limit reached for requests", type: "requests", code: "429" } }, chunk({ content: "never" }, "stop")], "Rate limit reached for requests"],
  ["OpenRouter's error chunk with finish_reason error", [before, OPENROUTER_ERROR, chunk({ content: "never" })], "Provider disconnected unexpectedly"],
  ["a bare finish_reason error", [before, chunk({}, "error")], "The upstream ended the reply with an error."],
];

describe.each(["messages", "responses", "gemini"] as const)("a %s client on a chat upstream", (format) => {
  it.each(chatCases)("%s ends the stream with the client's error event, the upstream's words in it, and nothing after", (_, events, message) => {
    const out = translateStream(clientOf(format), upstreamOf("chat"), [Buffer.from(chatSse(events))]);
    expect(errorMessage[format](out.at(-1)!)).toBe(message);
    expect(out.filter((event) => errorMessage[format](event) !== undefined)).toHaveLength(1);
    expect(JSON.stringify(out)).toContain("Let me ");
    expect(JSON.stringify(out)).not.toContain("never");
  });
});

describe("a chat client on a messages upstream", () => {
  it("ends with chat's error object when Anthropic sends event: error (overloaded), and no [DONE]", () => {
    const sse = messagesSse([
      { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 3, output_tokens: 1 } } } as never,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } as never,
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me " } } as never,
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } as never,
    ]);
    const out = translateStream(clientOf("chat"), upstreamOf("messages"), [Buffer.from(sse)]);
    expect(out.at(-1)).toEqual({ data: { error: { message: "Overloaded", type: "api_error", param: null, code: "upstream_error" } } });
    expect(out.some((event) => event.data === "[DONE]")).toBe(false);
  });
});
