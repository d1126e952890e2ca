import { describe, expect, it, vi } from "vitest";
import { claimPath } from "../src/formats/index.js";
import { ClientRequest } from "../src/request/client-request.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";
import { testSeal } from "./helpers/translate.js";

// Issue 53, one owner for the body: once no upstream is left to plan for, the request lets go of what the last plan
// does not need (src/server/stages/forward.ts), and whatever is asked after all is made again from the bytes.

const SEGMENTS = { messages: "anthropic", gemini: "gemini" };
const body = { model: "m", max_tokens: 8, system: "Be brief.", messages: [{ role: "user", content: "héllo → 日本" }] };

function request(): ClientRequest {
  const headers = { "content-type": "application/json" };
  return new ClientRequest(claimPath("POST", "/anthropic/v1/messages", headers, SEGMENTS)!, "", headers, Buffer.from(JSON.stringify(body)), structuredClone(body), "m", false);
}

describe("a request that lets go of its body", () => {
  it("parses its kept bytes again when its values are asked after the parse was let go", () => {
    const kept = request();
    const parsed = kept.json;
    const estimate = kept.estimatedInputTokens(testSeal);
    kept.release({ bytes: true, parse: false });
    expect(kept.json).not.toBe(parsed);
    expect(kept.json).toEqual(body);
    expect(kept.estimatedInputTokens(testSeal)).toBe(estimate);
  });

  it("keeps its parse when the reply's record will read it, and lets go of the bytes a translated plan no longer needs", () => {
    const translated = request();
    const parsed = translated.json;
    translated.release({ bytes: false, parse: true });
    expect(translated.bytes).toBeUndefined();
    expect(translated.json).toBe(parsed);
    const both = request();
    both.release({ bytes: false, parse: false });
    expect([both.bytes, both.json, both.estimatedInputTokens(testSeal)]).toEqual([undefined, undefined, undefined]);
  });
});

describe("a fallback across formats, planned after the request let go of what its last plan does not need", () => {
  const opened = closeAfterEach();
  const bytes = Buffer.from(JSON.stringify(body));

  async function fallingBackTo(first: Record<string, unknown>, second: Record<string, unknown>) {
    const busy = opened(await startFakeUpstream({ script: () => ({ status: 503, json: { error: { message: "overloaded" } } }) }));
    const spare = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from spare" }) }) }));
    const file = { upstream: "busy", retries: 0, upstreams: { busy: { url: busy.url, key: "none", fallback: ["spare"], ...first }, spare: { url: spare.url, key: "none", ...second } } };
    const gateway = opened(await startTestGateway(undefined, { file }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/anthropic/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: bytes });
    return { res, busy, spare };
  }

  it("passes the bytes through as they came after a translation that failed", async () => {
    const { res, busy, spare } = await fallingBackTo({ formats: ["chat"] }, {});
    expect(res.status).toBe(200);
    expect(busy.last().path).toBe("/v1/chat/completions");
    expect(spare.last().raw.equals(bytes)).toBe(true);
  });

  it("translates the whole conversation after a passthrough that failed", async () => {
    const { res, busy, spare } = await fallingBackTo({}, { formats: ["chat"] });
    expect(res.status).toBe(200);
    expect(busy.last().raw.equals(bytes)).toBe(true);
    expect(spare.last().path).toBe("/v1/chat/completions");
    expect(spare.last().body).toMatchObject({ model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "héllo → 日本" }] });
  });

  it("lets go of the body when an upstream with fallbacks left answers, as when the last one does", async () => {
    const release = vi.spyOn(ClientRequest.prototype, "release");
    try {
      const first = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from first" }) }) }));
      const spare = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "from spare" }) }) }));
      const file = { upstream: "first", retries: 0, upstreams: { first: { url: first.url, key: "none", fallback: ["spare"], formats: ["chat"] }, spare: { url: spare.url, key: "none" } } };
      const gateway = opened(await startTestGateway(undefined, { file }));
      const res = await rawRequest(gateway.url, { method: "POST", path: "/anthropic/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: bytes });
      expect(res.status).toBe(200);
      expect([first.received.length, spare.received.length]).toEqual([1, 0]);
      // A translated plan sends a body of its own and its reply reads none of the client's.
      expect(release.mock.calls).toEqual([[{ bytes: false, parse: false }]]);
    } finally {
      release.mockRestore();
    }
  });
});
