import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { keySources } from "../src/cli/upstream-keys.js";
import type { GatewayConfig } from "../src/config/index.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { completion, startFakeUpstream, type FakeUpstream, type Received } from "./helpers/fake-upstream.js";
import { refusalOf, STRICT_KINDS } from "./helpers/strict/index.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";

/**
 * SPEC 11, Your own login (`key: "client"`), through a real gateway with the official SDKs as clients: a request's own
 * credential goes to `client` upstreams unchanged and nowhere else (never a `none` upstream, a record, a capture or
 * the dashboard); a request with the local key may reach any upstream, and a `client` upstream then gets no
 * credential from it; a request with its own credential routed to an upstream that spends a key of the gateway's gets
 * 401 in its family's shape, and such upstreams are skipped on its fallback list.
 */

const opened = closeAfterEach();

/** The stand-in for a subscription token or a personal key: it may appear at the `client` upstream and nowhere else. */
const OWN_TOKEN = "sk-ant-oat01-own-login-standin-0123456789";
/** A personal API key. */
const OWN_KEY = "sk-ant-api03-own-personal-key-0123456789";
const GEMINI_OWN_KEY = "AIza-own-gemini-key-0123456789";
const PAID_KEY = "sk-paid-gateway-key-0123456789";

const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"];
const credentialsOf = (received: Received) => Object.fromEntries(CREDENTIAL_HEADERS.flatMap((name) => (received.headers[name] === undefined ? [] : [[name, received.headers[name]]])));

interface Setup {
  gateway: TestGateway;
  /** `key: "client"`, models `claude-*` and `gemini-*`. */
  own: FakeUpstream;
  /** `key: "none"`, models `qwen*`. */
  local: FakeUpstream;
  /** `key: "env:PAID_KEY"`, models `gpt-*`. */
  paid: FakeUpstream;
}

/**
 * An upstream that answers in the messages and chat shapes, and echoes every header it got into an error when asked
 * to fail; a chat call (some come translated) is held to the generic strict fake's rules first.
 */
async function upstream(name: string) {
  return opened(
    await startFakeUpstream({
      script: (request) => {
        const refused = refusalOf(STRICT_KINDS.generic, request);
        if (refused) return refused;
        if (request.method === "GET" && request.path.endsWith("/v1beta/models")) return { json: { models: [{ name: `models/${name}-model`, displayName: name }] } };
        if (request.method === "GET") return { json: { object: "list", data: [{ id: `${name}-model`, object: "model", created: 0, owned_by: name }] } };
        if (JSON.stringify(request.body).includes("please fail")) return { status: 529, json: { type: "error", error: { type: "overloaded_error", message: `echoing what came: ${JSON.stringify(request.headers)}` } } };
        if (request.path.endsWith("/v1/messages")) {
          return { json: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: `from ${name}` }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 3, output_tokens: 2 } } };
        }
        if (request.path.includes(":generateContent")) return { json: { candidates: [{ content: { role: "model", parts: [{ text: `from ${name}` }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 } } };
        return { json: completion({ content: `from ${name}` }) };
      },
    }),
  );
}

async function setup(extra: Record<string, unknown> = {}, own: Record<string, unknown> = {}): Promise<Setup> {
  const [ownUpstream, local, paid] = [await upstream("own"), await upstream("local"), await upstream("paid")];
  const gateway = opened(
    await startTestGateway(undefined, {
      file: {
        capture: "all",
        upstreams: {
          anthropic: { url: ownUpstream.url, key: "client", models: ["claude-*", "gemini-*"], ...own },
          local: { url: local.url, key: "none", models: ["qwen*"] },
          paid: { url: paid.url, key: "env:PAID_KEY", models: ["gpt-*"] },
        },
        ...extra,
      },
      env: { PAID_KEY },
      keySourceFor: (config: GatewayConfig) => keySources({ config, env: { PAID_KEY }, store: memoryKeyStore() }),
    }),
  );
  return { gateway, own: ownUpstream, local, paid };
}

const anthropic = (gateway: TestGateway, options: { apiKey?: string; authToken?: string }) => new Anthropic({ baseURL: gateway.url, apiKey: options.apiKey ?? null, authToken: options.authToken ?? null, maxRetries: 0 });

/** Every capture the dashboard holds, as text, fetched with the local key as the page does. */
async function dashboardText(gateway: TestGateway): Promise<string> {
  const auth = { authorization: `Bearer ${LOCAL_KEY}` };
  const summary = await rawRequest(gateway.url, { path: "/ui/api/summary", headers: auth });
  const details = await Promise.all(gateway.records.map((r) => rawRequest(gateway.url, { path: `/ui/api/requests/${r.requestId}`, headers: auth })));
  return [summary.body, ...details.map((d) => d.body)].join("\n");
}

describe("a request with its own credential", () => {
  it("reaches the client upstream with its x-api-key or bearer token unchanged, and the gateway adds none of its own", async () => {
    const { gateway, own, local, paid } = await setup();
    // The SDK sends an API key as a bearer token.
    const byKey = await anthropic(gateway, { apiKey: OWN_KEY }).messages.create({ model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(byKey.content).toEqual([{ type: "text", text: "from own" }]);
    expect(credentialsOf(own.last())).toEqual({ authorization: `Bearer ${OWN_KEY}` });
    // Claude Code with an API key sends it as x-api-key; both headers together go as they came.
    const both = await rawRequest(gateway.url, {
      method: "POST",
      path: "/v1/messages",
      headers: { ...messagesHeaders(OWN_KEY), authorization: `Bearer ${OWN_TOKEN}` },
      body: JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(both.status).toBe(200);
    expect(credentialsOf(own.last())).toEqual({ "x-api-key": OWN_KEY, authorization: `Bearer ${OWN_TOKEN}` });
    const byToken = await anthropic(gateway, { authToken: OWN_TOKEN }).messages.create({ model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(byToken.content).toEqual([{ type: "text", text: "from own" }]);
    expect(credentialsOf(own.last())).toEqual({ authorization: `Bearer ${OWN_TOKEN}` });
    expect(local.received).toHaveLength(0);
    expect(paid.received).toHaveLength(0);
  });

  it("a Gemini key, in the header or as key=, goes to the client upstream as it came", async () => {
    const { gateway, own } = await setup();
    const genai = new GoogleGenAI({ apiKey: GEMINI_OWN_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
    const reply = await genai.models.generateContent({ model: "gemini-x", contents: "hi" });
    expect(reply.text).toBe("from own");
    expect(credentialsOf(own.last())).toEqual({ "x-goog-api-key": GEMINI_OWN_KEY });
    const byQuery = await rawRequest(gateway.url, {
      method: "POST",
      path: `/gemini/v1beta/models/gemini-x:generateContent?key=${GEMINI_OWN_KEY}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(byQuery.status).toBe(200);
    expect(own.last().url).toBe(`/gemini/v1beta/models/gemini-x:generateContent?key=${GEMINI_OWN_KEY}`);
    expect(credentialsOf(own.last())).toEqual({});
  });

  it("a Gemini key in its header goes unchanged to a client upstream that serves chat only, through the translation", async () => {
    const { gateway, own } = await setup({}, { formats: ["chat"] });
    const genai = new GoogleGenAI({ apiKey: GEMINI_OWN_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
    const reply = await genai.models.generateContent({ model: "gemini-x", contents: "hi" });
    expect(reply.text).toBe("from own");
    expect(own.last().path).toBe("/v1/chat/completions");
    expect(credentialsOf(own.last())).toEqual({ "x-goog-api-key": GEMINI_OWN_KEY });
    // Gemini's other headers are its format's, and stay behind on a translated route (SPEC 10 rule 1).
    expect(Object.keys(own.last().headers).filter((name) => name.startsWith("x-goog-"))).toEqual(["x-goog-api-key"]);
  });

  it("beside the local key (in another header, or Gemini's key=), it is the local key's request: the local key never goes upstream", async () => {
    const { gateway, own } = await setup();
    const body = JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] });
    // Claude Code with ANTHROPIC_API_KEY set and gateway env's ANTHROPIC_AUTH_TOKEN: x-api-key is checked first.
    const both = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(OWN_KEY), authorization: `Bearer ${LOCAL_KEY}` }, body });
    expect(both.status).toBe(200);
    expect(credentialsOf(own.last())).toEqual({});
    const gemini = await rawRequest(gateway.url, {
      method: "POST",
      path: `/gemini/v1beta/models/gemini-x:generateContent?key=${LOCAL_KEY}`,
      headers: { "content-type": "application/json", "x-goog-api-key": GEMINI_OWN_KEY },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(gemini.status).toBe(200);
    expect(own.last().url).toBe("/gemini/v1beta/models/gemini-x:generateContent");
    expect(credentialsOf(own.last())).toEqual({});
    expect(JSON.stringify(own.received.map((r) => [r.url, r.headers]))).not.toContain(LOCAL_KEY);
  });

  it("a none upstream gets no credential from it, and one that spends a key of the gateway's answers 401 in the client's shape", async () => {
    const { gateway, local, paid } = await setup();
    const toLocal = await anthropic(gateway, { apiKey: OWN_TOKEN }).messages.create({ model: "qwen3", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(toLocal.content).toEqual([{ type: "text", text: "from local" }]);
    expect(credentialsOf(local.last())).toEqual({});

    const refused = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(OWN_TOKEN) }, body: JSON.stringify({ model: "gpt-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }) });
    expect(refused.status).toBe(401);
    expect(refused.headers["x-gateway-upstream"]).toBe("paid");
    expect(JSON.parse(refused.body)).toEqual({
      type: "error",
      error: {
        type: "authentication_error",
        message:
          'The model gpt-x goes to the upstream paid, which uses a key of the gateway\'s, so it needs the local key: this request carries a credential of its own. Send the key printed by `gateway env`, or route it to an upstream with "key": "client" or "none".',
      },
    });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-proj-own-openai-key-0123456789", maxRetries: 0 });
    const chatRefused = await openai.chat.completions.create({ model: "gpt-x", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(chatRefused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((chatRefused as InstanceType<typeof OpenAI.AuthenticationError>).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    const geminiRefused = await rawRequest(gateway.url, {
      method: "POST",
      path: "/gemini/v1beta/models/gpt-x:generateContent",
      headers: { "content-type": "application/json", "x-goog-api-key": GEMINI_OWN_KEY },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(geminiRefused.status).toBe(401);
    expect(JSON.parse(geminiRefused.body).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    expect(paid.received).toHaveLength(0);
  });

  it("its fallback list skips upstreams of the gateway's keys, and an upstream echoing its credential never puts it in a record or capture", async () => {
    const { gateway, own, local, paid } = await setup({ retries: 0 }, { fallback: ["paid", "local"] });
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(OWN_TOKEN) }, body: JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "please fail" }] }) });
    expect(res.status).toBe(529);
    expect(res.headers["x-gateway-upstream"]).toBe("local");
    expect(own.received).toHaveLength(1);
    expect(local.received).toHaveLength(1);
    expect(paid.received).toHaveLength(0);
    expect(credentialsOf(local.last())).toEqual({});
    // What the gateway keeps and shows: the record, the capture of the request and of both replies.
    const kept = `${JSON.stringify(gateway.records)}\n${await dashboardText(gateway)}`;
    expect(kept).toContain("echoing what came");
    expect(kept).not.toContain(OWN_TOKEN);
    expect(gateway.records[0]).toMatchObject({ upstream: "local", tried: [{ upstream: "anthropic", failure: "upstream 529" }] });
  });

  it("lists the models of the upstreams it may reach, its credential going to the client upstream only", async () => {
    const { gateway, own, local, paid } = await setup();
    const models = [];
    for await (const model of anthropic(gateway, { authToken: OWN_TOKEN }).models.list()) models.push(model.id);
    expect(models).toEqual(["own-model", "local-model"]);
    expect(credentialsOf(own.last())).toEqual({ authorization: `Bearer ${OWN_TOKEN}` });
    expect(credentialsOf(local.last())).toEqual({});
    expect(paid.received).toHaveLength(0);
  });

  it("a Gemini client's own x-goog-api-key goes with the model-list request to the client upstream", async () => {
    const { gateway, own, local, paid } = await setup();
    const genai = new GoogleGenAI({ apiKey: GEMINI_OWN_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
    const pager = await genai.models.list();
    const names = [];
    for await (const model of pager) names.push(model.name);
    expect(names).toEqual(["models/own-model", "models/local-model"]);
    expect(own.last().method).toBe("GET");
    expect(credentialsOf(own.last())).toEqual({ "x-goog-api-key": GEMINI_OWN_KEY });
    expect(credentialsOf(local.last())).toEqual({});
    expect(paid.received).toHaveLength(0);
  });
});

describe("a request with the local key, beside a client upstream", () => {
  it("may reach any upstream; the client upstream gets no credential from it", async () => {
    const { gateway, own, paid } = await setup();
    const client = anthropic(gateway, { apiKey: LOCAL_KEY });
    expect((await client.messages.create({ model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })).content).toEqual([{ type: "text", text: "from own" }]);
    expect(credentialsOf(own.last())).toEqual({});
    expect((await client.messages.create({ model: "gpt-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })).content).toEqual([{ type: "text", text: "from paid" }]);
    expect(credentialsOf(paid.last())).toEqual({ "x-api-key": PAID_KEY });
    expect(JSON.stringify([...own.received, ...paid.received].map((r) => r.headers))).not.toContain(LOCAL_KEY);
  });

  it("as key= is a credential only in the gemini family: a chat or messages request with only ?key=<local key> gets 401, and the key never goes upstream", async () => {
    const { gateway, own, local, paid } = await setup();
    const chat = await rawRequest(gateway.url, {
      method: "POST",
      path: `/v1/chat/completions?key=${LOCAL_KEY}`,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-x", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(401);
    expect(JSON.parse(chat.body)).toEqual({
      error: { message: "Missing or wrong local key. Send Authorization: Bearer <key> with the key printed by `gateway env`.", type: "authentication_error", param: null, code: "invalid_api_key" },
    });
    const messages = await rawRequest(gateway.url, {
      method: "POST",
      path: `/v1/messages?key=${LOCAL_KEY}`,
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(messages.status).toBe(401);
    expect(JSON.parse(messages.body)).toEqual({ type: "error", error: { type: "authentication_error", message: "Missing or wrong local key. Send x-api-key: <key> with the key printed by `gateway env`." } });
    // With the local key in its header the request is served, and the copy in its query (under any name) stays behind.
    const served = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions.create(
      { model: "gpt-x", messages: [{ role: "user", content: "hi" }] },
      { query: { key: LOCAL_KEY, keep: "1", token: LOCAL_KEY } },
    );
    expect(served.choices[0]!.message.content).toBe("from paid");
    expect(paid.last().url).toBe("/v1/chat/completions?keep=1");
    expect(JSON.stringify([...own.received, ...local.received, ...paid.received].map((r) => [r.url, r.headers]))).not.toContain(LOCAL_KEY);
  });

  it("a value shaped like a local key that is not this gateway's is refused as a wrong local key, never passed on", async () => {
    const { gateway, own } = await setup();
    const stale = `gw-${"A".repeat(43)}`;
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(stale) }, body: JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }) });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.message).toBe("Missing or wrong local key. Send x-api-key: <key> with the key printed by `gateway env`.");
    expect(own.received).toHaveLength(0);
  });
});

describe("with no client upstream", () => {
  it("a credential other than the local key is 401, as SPEC 3 says", async () => {
    const local = await upstream("local");
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { local: { url: local.url, key: "none" } } } }));
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(OWN_TOKEN) }, body: JSON.stringify({ model: "qwen3", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }) });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.message).toBe("Missing or wrong local key. Send x-api-key: <key> with the key printed by `gateway env`.");
    expect(local.received).toHaveLength(0);
  });
});
