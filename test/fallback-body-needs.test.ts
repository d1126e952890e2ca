import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { chatSse, chunk, completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";

// Issue 53, one owner for the body (src/server/stages/forward.ts): the request lets go of what a plan does not need
// once no other will be made, the last candidate's or one with fallbacks left that answers. Whatever candidate ends
// up answering must still have what it needs: the client's bytes for a passthrough, the parse for the estimate of a
// stream that reports no usage. Each figure is held against a gateway with that one upstream alone.

const opened = closeAfterEach();
/** $0.10 per input token: a reply of 12 tokens in costs $1.20, over a daily budget of $1. */
const PRICES = { "paid-*": { input: 100_000, output: 0 } };
const silentStream = () => ({ headers: { "content-type": "text/event-stream" }, chunks: [chatSse([chunk({ role: "assistant", content: "" }), chunk({ content: "no usage here" }), chunk({}, "stop")])] });
const messagesReply = { id: "msg_1", type: "message", role: "assistant", model: "paid-1", content: [{ type: "text", text: "from b" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 12, output_tokens: 5 } };

async function alone() {
  const lone = opened(await startFakeUpstream({ script: (r) => (r.body?.stream ? silentStream() : { json: completion({ content: "alone" }) }) }));
  const gateway = opened(await startTestGateway(undefined, { file: { prices: PRICES, upstream: "lone", upstreams: { lone: { url: lone.url, key: "none", formats: ["chat"] } } } }));
  return { lone, client: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }), records: gateway.records };
}

const body = { model: "paid-1", messages: [{ role: "system" as const, content: "Be brief, héllo → 日本." }, { role: "user" as const, content: "what is 2+2?" }] };

describe("fallbacks across passthrough and translation, after the request let go of its body", () => {
  it("passthrough that fails -> translated refused by its budget -> passthrough stream without usage: the client's bytes sent, the estimate made", async () => {
    const a = opened(await startFakeUpstream({ script: () => ({ status: 503, json: { error: { message: "busy", type: "server_error" } } }) }));
    const b = opened(await startFakeUpstream({ script: () => ({ json: messagesReply }) }));
    const c = opened(await startFakeUpstream({ script: (r) => (r.body?.stream ? silentStream() : { json: completion({ content: "from c" }) }) }));
    const upstreams = {
      a: { url: a.url, key: "none", formats: ["chat"], fallback: ["b", "c"] },
      b: { url: b.url, key: "none", formats: ["messages"], budgets: { daily: 1 } },
      c: { url: c.url, key: "none", formats: ["chat"] },
    };
    const gateway = opened(await startTestGateway(undefined, { file: { prices: PRICES, upstream: "a", retries: 0, upstreams } }));
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    // The first spends b's budget: translated, $1.20 of $1.
    expect((await client.chat.completions.create(body)).choices[0]!.message.content).toBe("from b");
    let text = "";
    for await (const part of await client.chat.completions.create({ ...body, stream: true })) text += part.choices[0]?.delta?.content ?? "";
    const only = await alone();
    for await (const _part of await only.client.chat.completions.create({ ...body, stream: true }));

    expect(text).toBe("no usage here");
    expect(c.received.at(-1)!.raw.equals(only.lone.received.at(-1)!.raw)).toBe(true);
    expect(gateway.records.at(-1)).toMatchObject({
      upstream: "c",
      tried: [
        { upstream: "a", failure: "upstream 503" },
        { upstream: "b", failure: "budget daily" },
      ],
      estimated: true,
      inputTokens: only.records.at(-1)!.inputTokens,
      outputTokens: only.records.at(-1)!.outputTokens,
    });
  });

  it("a passthrough with a translated fallback left that answers a stream without usage is estimated as alone", async () => {
    const a = opened(await startFakeUpstream({ script: () => silentStream() }));
    const b = opened(await startFakeUpstream({ script: () => ({ json: messagesReply }) }));
    const upstreams = { a: { url: a.url, key: "none", formats: ["chat"], fallback: ["b"] }, b: { url: b.url, key: "none", formats: ["messages"] } };
    const gateway = opened(await startTestGateway(undefined, { file: { prices: PRICES, upstream: "a", upstreams } }));
    for await (const _part of await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions.create({ ...body, stream: true }));
    const only = await alone();
    for await (const _part of await only.client.chat.completions.create({ ...body, stream: true }));

    expect(b.received).toHaveLength(0);
    expect(gateway.records.at(-1)).toMatchObject({ upstream: "a", estimated: true, inputTokens: only.records.at(-1)!.inputTokens, outputTokens: only.records.at(-1)!.outputTokens });
    expect(only.records.at(-1)!.inputTokens).toBeGreaterThan(0);
  });
});
