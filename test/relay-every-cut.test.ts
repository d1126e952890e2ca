import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { FORMATS } from "../src/formats/index.js";
import { createUsageObserver } from "../src/server/reply/observe-usage.js";
import { relayBody } from "../src/server/reply/relay-body.js";
import { HttpSink } from "../src/server/reply/sink.js";
import { createStreamErrorWatch } from "../src/server/reply/stream-error-watch.js";
import { ReplyBody } from "../src/upstream/reply-body.js";

// A passthrough event stream is relayed byte for byte, its usage counted and an upstream's error event inside its
// 200 seen, wherever the upstream's writes cut it (src/server/reply/passthrough.ts wires these three as here): the
// error watch reads the whole events the relay sends (RelayOptions.onEvents), and a chat stream without usage is
// parsed once per event for its usage and its text.

/** A response that keeps the bytes that reach it. */
class KeptResponse extends EventEmitter {
  readonly parts: Buffer[] = [];
  destroyed = false;
  writableNeedDrain = false;
  write(chunk: Buffer): boolean {
    this.parts.push(Buffer.from(chunk));
    return true;
  }
  end(chunk?: Buffer | string): this {
    if (chunk !== undefined) this.parts.push(Buffer.from(chunk));
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

/** `bytes` relayed in the pieces `cuts` makes, as the passthrough relays a chat stream that asked for no usage. */
async function relayed(bytes: Buffer, cuts: readonly number[]) {
  const chat = FORMATS.find((format) => format.name === "chat")!;
  const body = new ReplyBody({ resume: () => undefined, abort: () => undefined });
  const res = new KeptResponse();
  const usage = createUsageObserver(chat.usage, "text/event-stream", undefined, true);
  const watch = createStreamErrorWatch();
  const outcome = relayBody(body, new HttpSink(res as unknown as ServerResponse), {
    errors: chat.errors,
    isEventStream: true,
    onChunk: (chunk) => usage.observe(chunk),
    onEvents: (events) => watch.observe(events),
    streamEnd: [Buffer.from("data: [DONE]")],
  });
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) body.push(bytes.subarray(from, cut));
    from = cut;
  }
  body.complete();
  expect(await outcome).toBe("complete");
  return { sent: Buffer.concat(res.parts), usage: usage.result(), chars: usage.relayedChars(), error: watch.seen() };
}

const delta = (content: string) => JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] });

/** Every shape the relay must keep: CRLF and CR line ends, a comment, `data:` without its space, a named event, an escaped `"error"` in the text, a multi-byte character, an event after `[DONE]`. */
const STREAM = [
  ": keep-alive\r\n\r\n",
  `data:${delta("héllo → 日本")}\r\n\r\n`,
  `data: ${delta('say \\"error\\" twice')}\r\r`,
  `event: chunk\ndata: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { reasoning_content: "hm", tool_calls: [{ index: 0, function: { name: "look", arguments: '{"a":1}' } }] } }] })}\n\n`,
  `data: ${delta("done")}\r\n\n`,
  "data: [DONE]\n\n",
  `data: ${delta("after")}\n\n`,
].join("");

const FAILED = [`data: ${delta("part")}\r\n\r\n`, `data: {"error":{"message":"overloaded","type":"server_error"}}\r\n\r\n`, "data: [DONE]\r\n\r\n"].join("");

describe("a passthrough chat stream, cut anywhere", () => {
  for (const [name, text, error] of [["a stream that ends well", STREAM, false], ["a stream with an error event inside its 200", FAILED, true]] as const) {
    it(`${name}: the same bytes, usage, text count and error, cut at any one byte, any two, or byte by byte`, async () => {
      const bytes = Buffer.from(text);
      const whole = await relayed(bytes, []);
      expect(whole.sent.equals(bytes)).toBe(true);
      expect(whole.error).toBe(error);
      expect(whole.chars).toBeGreaterThan(0);
      const cuts: number[][] = [Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)];
      for (let a = 1; a < bytes.length; a++) {
        cuts.push([a]);
        for (let b = a + 1; b < bytes.length; b += 13) cuts.push([a, b]);
      }
      for (const cut of cuts) {
        const got = await relayed(bytes, cut);
        expect(got.sent.equals(bytes), `cut at ${cut.length > 2 ? "every byte" : cut.join(", ")}`).toBe(true);
        expect({ usage: got.usage, chars: got.chars, error: got.error }, `cut at ${cut.length > 2 ? "every byte" : cut.join(", ")}`).toEqual({ usage: whole.usage, chars: whole.chars, error });
      }
    });
  }

  it("relays and reads an event of 3 MB that comes in reads of 16 KB", async () => {
    const big = `data: ${delta("x".repeat(3_000_000))}\n\n`;
    const bytes = Buffer.from(`${big}data: {"error":{"message":"cut short"}}\n\ndata: [DONE]\n\n`);
    const got = await relayed(bytes, Array.from({ length: Math.floor(bytes.length / 16_384) }, (_, i) => (i + 1) * 16_384));
    expect(got.sent.equals(bytes)).toBe(true);
    expect([got.chars, got.error]).toEqual([3_000_000, true]);
  });
});
