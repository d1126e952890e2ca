import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../src/config/index.js";
import { keySources } from "../src/cli/upstream-keys.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream, type Received, type ScriptedReply } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";

/**
 * SPEC 11, Several keys, through a real gateway and a real upstream on loopback: keys take turns, a key answered 429
 * (or refused after it once worked) rests until its `retry-after` and the same request goes out at once with the next
 * key, SPEC 5's retries apply only once every key rests, records name the key by label or variable, and no upstream
 * ever sees a key that is not its own.
 */

const opened = closeAfterEach();
let gateway: TestGateway;

const KEYS = { KEY_A: "sk-pool-a-0123456789", KEY_B: "sk-pool-b-0123456789", OTHER: "sk-other-0123456789" };

/** The bearer token an upstream received. */
const bearer = (received: Received) => received.headers.authorization?.replace(/^Bearer /, "");

/** An upstream that answers each key as `answers` says (200 with the key's name when it says nothing). */
async function upstreamAnswering(answers: (key: string | undefined, request: Received) => ScriptedReply | undefined = () => undefined) {
  return opened(await startFakeUpstream({ script: (request) => answers(bearer(request), request) ?? { json: completion({ content: `served by ${bearer(request)}` }) } }));
}

async function startWith(file: Record<string, unknown>, options: { keychain?: Record<string, string>; env?: NodeJS.ProcessEnv } = {}) {
  const store = memoryKeyStore(options.keychain);
  const env = options.env ?? { ...KEYS };
  gateway = opened(await startTestGateway(undefined, { file, env, keySourceFor: (config: GatewayConfig) => keySources({ config, env, store }) }));
  return gateway;
}

const chat = (model = "m") =>
  rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });

describe("several keys take turns", () => {
  it("each request takes the next key, and the record names it by variable or label, never by value", async () => {
    const upstream = await upstreamAnswering();
    const origin = upstream.url;
    await startWith(
      { upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "keychain:work", "env:KEY_B"] } } },
      { keychain: { [`${origin}#work`]: "sk-pool-work-0123456789", [origin]: "sk-unlabelled-never-sent" }, env: { ...KEYS } },
    );
    for (let i = 0; i < 4; i++) expect((await chat()).status).toBe(200);
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_A, "sk-pool-work-0123456789", KEYS.KEY_B, KEYS.KEY_A]);
    expect(gateway.records.map((r) => r.key)).toEqual(["env:KEY_A", "keychain:work", "env:KEY_B", "env:KEY_A"]);
    const recorded = JSON.stringify(gateway.records);
    for (const value of [...Object.values(KEYS), "sk-pool-work-0123456789", "sk-unlabelled-never-sent"]) expect(recorded).not.toContain(value);
  });

  it("a key whose variable is unset is passed over; with none set the upstream answers 503 naming every key", async () => {
    const upstream = await upstreamAnswering();
    const env: NodeJS.ProcessEnv = { KEY_B: KEYS.KEY_B };
    await startWith({ upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"] } } }, { env });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_B, KEYS.KEY_B]);
    delete env.KEY_B;
    const res = await chat();
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message:
          "None of the keys of the upstream pool (env:KEY_A, env:KEY_B) is available, so nothing is forwarded to it. Store a labelled one with `gateway login pool --label <label>`, or set its variable in the gateway's environment and restart it.",
        type: "api_error",
        param: null,
        code: "no_upstream_key",
      },
    });
    expect(upstream.received).toHaveLength(2);
  });
});

describe("a refused key rests, and the same request goes out at once with the next", () => {
  it("429 rests the key until its retry-after; the request is answered by the next key though retries are 0", async () => {
    const upstream = await upstreamAnswering((key) => (key === KEYS.KEY_A ? { status: 429, headers: { "retry-after": "30" }, json: { error: { message: "slow down", type: "rate_limit_error" } } } : undefined));
    await startWith({ retries: 0, upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"] } } });
    const first = await chat();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body).choices[0].message.content).toBe(`served by ${KEYS.KEY_B}`);
    // While key A rests, every request takes key B: A is never asked again.
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_A, KEYS.KEY_B, KEYS.KEY_B, KEYS.KEY_B]);
    expect(gateway.records.map((r) => [r.status, r.key])).toEqual([
      [200, "env:KEY_B"],
      [200, "env:KEY_B"],
      [200, "env:KEY_B"],
    ]);
  });

  it("a retry-after that is neither delay-seconds nor an HTTP-date (-1, 5, 7, a loose date) rests the key 60 s, not 0 ms", async () => {
    for (const retryAfter of ["-1", "5, 7", "2026-12-07"]) {
      const upstream = await upstreamAnswering((key) => (key === KEYS.KEY_A ? { status: 429, headers: { "retry-after": retryAfter }, json: { error: { message: "slow down", type: "rate_limit_error" } } } : undefined));
      await startWith({ retries: 0, upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"] } } });
      for (let i = 0; i < 3; i++) expect((await chat()).status).toBe(200);
      // Key A is asked once: resting, it is not the first tried on every request.
      expect([retryAfter, upstream.received.map(bearer)]).toEqual([retryAfter, [KEYS.KEY_A, KEYS.KEY_B, KEYS.KEY_B, KEYS.KEY_B]]);
    }
  });

  it("401 rests a key that has answered 2xx; from a key that never worked it is the answer, as before", async () => {
    let revoked = false;
    const upstream = await upstreamAnswering((key) => {
      if (key === KEYS.KEY_B) return { status: 401, json: { error: { message: "bad key B", type: "authentication_error" } } };
      if (key === KEYS.KEY_A && revoked) return { status: 401, json: { error: { message: "key A revoked", type: "authentication_error" } } };
      return undefined;
    });
    await startWith({ retries: 0, upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"] } } });
    expect((await chat()).status).toBe(200);
    // Key B never worked: its 401 is the client's answer, and it does not rest.
    const refused = await chat();
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).error.message).toBe("bad key B");
    // Key A worked once; revoked now, its 401 rests it, and the same request goes to key B, whose 401 is the answer.
    revoked = true;
    const again = await chat();
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body).error.message).toBe("bad key B");
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_A, KEYS.KEY_B, KEYS.KEY_A, KEYS.KEY_B]);
  });

  it("once every key rests, SPEC 5's retries and fallback apply: the request falls back, and the record lists how", async () => {
    const upstream = await upstreamAnswering(() => ({ status: 429, headers: { "retry-after": "60" }, json: { error: { message: "quota", type: "rate_limit_error" } } }));
    const spare = await upstreamAnswering();
    await startWith(
      { upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"], fallback: ["spare"] }, spare: { url: spare.url, key: "env:OTHER" } } },
      { env: { ...KEYS } },
    );
    const res = await chat();
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("spare");
    // A 60 s retry-after is longer than SPEC 5 waits: no retry, each key once, then the fallback.
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_A, KEYS.KEY_B]);
    expect(spare.received.map(bearer)).toEqual([KEYS.OTHER]);
    expect(gateway.records[0]).toMatchObject({ upstream: "spare", tried: [{ upstream: "pool", failure: "upstream 429" }] });
    // Both keys rest: the next request does not reach the pool at all, and falls back at once.
    expect((await chat()).headers["x-gateway-upstream"]).toBe("spare");
    expect(upstream.received).toHaveLength(2);
    expect(gateway.records[1]).toMatchObject({ upstream: "spare", tried: [{ upstream: "pool", failure: "keys resting" }] });
    expect(JSON.stringify([...upstream.received, ...spare.received].map((r) => r.headers))).not.toContain(LOCAL_KEY);
    expect(JSON.stringify(spare.received.map((r) => r.headers))).not.toMatch(/sk-pool-/);
    expect(JSON.stringify(upstream.received.map((r) => r.headers))).not.toContain(KEYS.OTHER);
  });

  it("keys that rest for no time (retry-after: 0) take the request once each, then the 429 reaches the client", async () => {
    const upstream = await upstreamAnswering(() => ({ status: 429, headers: { "retry-after": "0" }, json: { error: { message: "busy", type: "rate_limit_error" } } }));
    await startWith({ retries: 0, upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"] } } });
    const res = await chat();
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body)).toEqual({ error: { message: "busy", type: "rate_limit_error" } });
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_A, KEYS.KEY_B]);
  });

  it("with every key resting and no fallback, the upstream's 429 reaches the client with retry-after to the soonest wake; then nothing reaches the upstream", async () => {
    const upstream = await upstreamAnswering((key) => ({ status: 429, headers: { "retry-after": key === KEYS.KEY_A ? "35" : "45" }, json: { error: { message: "quota", type: "rate_limit_error" } } }));
    await startWith({ upstreams: { pool: { url: upstream.url, key: ["env:KEY_A", "env:KEY_B"] } } });
    const res = await chat();
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("35");
    expect(JSON.parse(res.body)).toEqual({ error: { message: "quota", type: "rate_limit_error" } });
    expect(gateway.records[0]).toMatchObject({ status: 429, key: "env:KEY_B" });
    // Every key rests: the gateway answers itself, in each family's shape, naming the upstream and the soonest wake.
    const again = await chat();
    expect(again.status).toBe(429);
    expect(Number(again.headers["retry-after"])).toBeGreaterThanOrEqual(34);
    expect(Number(again.headers["retry-after"])).toBeLessThanOrEqual(35);
    const message = `Every key of the upstream pool is resting after the upstream refused it (429, or a key refused after it had worked), so the request was not sent. The first key wakes in ${again.headers["retry-after"]} s: try again then, or add a key with \`gateway login pool --label <label>\` and list it in its "key".`;
    expect(JSON.parse(again.body)).toEqual({ error: { message, type: "rate_limit_error", param: null, code: "rate_limit_exceeded" } });
    const messages = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }) });
    expect(messages.status).toBe(429);
    expect(JSON.parse(messages.body)).toEqual({ type: "error", error: { type: "rate_limit_error", message: expect.stringContaining("Every key of the upstream pool is resting") } });
    const gemini = await rawRequest(gateway.url, { method: "POST", path: "/gemini/v1beta/models/m:generateContent", headers: { "content-type": "application/json", "x-goog-api-key": LOCAL_KEY }, body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }) });
    expect(gemini.status).toBe(429);
    expect(JSON.parse(gemini.body).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(gemini.headers["retry-after"]).toMatch(/^3[45]$/);
    expect(upstream.received.map(bearer)).toEqual([KEYS.KEY_A, KEYS.KEY_B]);
  });
});
