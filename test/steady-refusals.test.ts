import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { familyNamed } from "../src/formats/index.js";
import { KINDS } from "../src/kinds/index.js";
import { relayBody } from "../src/server/reply/relay-body.js";
import { HttpSink } from "../src/server/reply/sink.js";
import { isStreamErrorEvent, createStreamErrorWatch } from "../src/server/reply/stream-error-watch.js";
import { ReplyBody } from "../src/upstream/reply-body.js";
import { steadyRefusalMessage, withSteadyRefusal } from "../src/upstream/steady-refusal.js";

/**
 * SPEC 11, Refusals that do not change with a retry: the pure parts, driven with llama.cpp's own answers as its
 * server wrote them (test/llamacpp-real.test.ts runs the same against the real server).
 */

const JINJA = '{"error":{"code":500,"message":"\\n------------\\nWhile executing CallExpression at line 85, column 32 in source:\\n...\\nError: Jinja Exception: System message must be at the beginning.","type":"server_error"}}';
const IMAGE = '{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}';
const { steadyRefusals } = KINDS.llamacpp.quirks;

describe("steady refusals: what a kind names", () => {
  it("llama.cpp's template refusal and missing projector are refusals; a 500 of another wording, or of another kind, is not", () => {
    expect(steadyRefusalMessage(steadyRefusals, 500, JINJA)).toContain("System message must be at the beginning.");
    expect(steadyRefusalMessage(steadyRefusals, 500, IMAGE)).toMatch(/^image input is not supported/);
    expect(steadyRefusalMessage(steadyRefusals, 500, '{"error":{"code":500,"message":"slot unavailable"}}')).toBeUndefined();
    expect(steadyRefusalMessage(steadyRefusals, 503, IMAGE)).toBeUndefined();
    expect(steadyRefusalMessage(KINDS.vllm.quirks.steadyRefusals, 500, IMAGE)).toBeUndefined();
  });

  it("a refusal becomes a 400 in the call's family envelope; anything else comes back with its bytes unchanged", async () => {
    const reply = (status: number, text: string) => ({ statusCode: status, headers: { "content-type": "application/json", "content-length": String(text.length) }, body: ReplyBody.of(Buffer.from(text)) });
    const refused = await withSteadyRefusal(steadyRefusals, familyNamed("messages"), reply(500, IMAGE));
    expect(refused.statusCode).toBe(400);
    const text = await refused.body.text();
    expect(JSON.parse(text)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj" } });
    expect(refused.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    const other = await withSteadyRefusal(steadyRefusals, familyNamed("chat"), reply(500, '{"error":"busy"}'));
    expect([other.statusCode, await other.body.text()]).toEqual([500, '{"error":"busy"}']);
  });
});

describe("an error event inside a 200 stream", () => {
  it("is llama.cpp's {error}, OpenRouter's finish_reason error, or a Responses error event; text that says error is not", () => {
    expect(isStreamErrorEvent('{"error":{"code":500,"message":"The model produced output that does not match the expected peg-native format","type":"server_error"}}')).toBe(true);
    expect(isStreamErrorEvent('{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}')).toBe(true);
    expect(isStreamErrorEvent('{"type":"response.failed","response":{"status":"failed"}}')).toBe(true);
    expect(isStreamErrorEvent('{"choices":[{"index":0,"delta":{"content":"an \\"error\\" here"},"finish_reason":null}]}')).toBe(false);
    expect(isStreamErrorEvent('{"choices":[],"error":null}')).toBe(false);
  });

  /** A passthrough relay of an event stream watched as `passthrough.ts` watches it; `res` takes what the client would get. */
  function watched() {
    const watch = createStreamErrorWatch();
    const body = new ReplyBody({ resume: () => undefined, abort: () => undefined });
    const res = Object.assign(new EventEmitter(), { destroyed: false, writableNeedDrain: false, write: () => true, end: () => undefined });
    const outcome = relayBody(body, new HttpSink(res as unknown as ServerResponse), { errors: familyNamed("chat").errors, isEventStream: true, onEvents: (events) => watch.observe(events) });
    return { watch, body, outcome };
  }

  it("is found wherever the stream is cut between two reads, and only once its event is whole", async () => {
    const stream = Buffer.from('data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"error":{"message":"broke"}}\n\n');
    for (let cut = 1; cut < stream.length; cut++) {
      const { watch, body, outcome } = watched();
      body.push(stream.subarray(0, cut));
      expect(watch.seen(), `cut at ${cut}`).toBe(false);
      body.push(stream.subarray(cut));
      expect(watch.seen(), `cut at ${cut}`).toBe(true);
      body.complete();
      await outcome;
    }
  });

  it("reads a model's text that only mentions \"error\" as text", async () => {
    const { watch, body, outcome } = watched();
    const stream = Buffer.from('data: {"choices":[{"delta":{"content":"say \\"error\\""}}]}\n\n');
    for (let cut = 1; cut <= stream.length; cut++) body.push(stream.subarray(cut - 1, cut));
    body.complete();
    await outcome;
    expect(watch.seen()).toBe(false);
  });
});
