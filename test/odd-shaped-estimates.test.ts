import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { countHubTokens, estimateHubTokens, hubTokenBounds } from "../src/translate/count-tokens.js";
import type { HubRequest } from "../src/translate/hub.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { chatSse, chunk, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";

// A chat client's body is its hub as it came: the gateway counts it (a `minInputTokens` rule, the record's estimate
// of a stream that reports no usage) before any upstream has judged it. A message, part or tool call of another shape
// is the upstream's to refuse; counting it must neither throw nor count it.

const opened = closeAfterEach();

/** Each odd shape beside one good text, "hello": only the two good messages and that text are counted. */
const ODD = {
  model: "m",
  messages: [null, 3, { role: "user", content: [null, 7, { type: "text", text: "hello" }] }, { role: "assistant", content: null, tool_calls: 3 }, { role: "assistant", tool_calls: [null, { function: 5 }] }],
} as unknown as HubRequest;

describe("the local count of an odd-shaped chat body", () => {
  it("counts the well-formed messages and texts and leaves the rest out", async () => {
    // 3 for the request, 4 for each of the three message objects, ceil(5 / 4) for "hello".
    expect(estimateHubTokens(ODD)).toBe(3 + 3 * 4 + 2);
    expect(hubTokenBounds(ODD)).toEqual({ low: 2, high: 3 + 3 * 4 + 5 });
    expect(await countHubTokens(ODD)).toBe(3 + 3 * 4 + 1);
  });

  it("under a minInputTokens rule, reaches the upstream, whose refusal the client gets as it was sent", async () => {
    // OpenAI's answer to `tool_calls` that is not an array (its 400 `invalid_type` envelope, as its API writes it for
    // a field of the wrong type).
    const refusal = {
      error: { message: "Invalid type for 'messages[1].tool_calls': expected an array of objects, but got an integer instead.", type: "invalid_request_error", param: "messages[1].tool_calls", code: "invalid_type" },
    };
    const upstream = opened(await startFakeUpstream({ script: () => ({ status: 400, json: refusal }) }));
    const gateway = opened(
      await startTestGateway(undefined, { file: { upstream: "main", retries: 0, upstreams: { main: { url: upstream.url, key: "none" } }, routes: [{ name: "long", when: { minInputTokens: 10_000 }, to: "main" }] } }),
    );
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${LOCAL_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: 3 }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(refusal);
    expect(upstream.received).toHaveLength(1);
    expect(gateway.records.map((record) => [record.status, record.upstream])).toEqual([[400, "main"]]);
  });

  it("in a passed-through stream that reports no usage, is still recorded, with the estimate of what was well-formed", async () => {
    // A chat stream asked without `stream_options.include_usage` carries no usage, as OpenAI's and vLLM's do.
    const upstream = opened(await startFakeUpstream({ script: () => ({ headers: { "content-type": "text/event-stream" }, chunks: [chatSse([chunk({ role: "assistant", content: "hi" }), chunk({}, "stop")])] }) }));
    const gateway = opened(await startTestGateway(upstream.url));
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const messages = [{ role: "user", content: [null, { type: "text", text: "hello" }] }] as unknown as OpenAI.ChatCompletionMessageParam[];
    const stream = await client.chat.completions.create({ model: "m", stream: true, messages });
    for await (const _ of stream);
    await expect.poll(() => gateway.records.length).toBe(1);
    expect(gateway.records[0]).toMatchObject({ status: 200, inputTokens: 3 + 4 + 2, estimated: true });
  });
});
