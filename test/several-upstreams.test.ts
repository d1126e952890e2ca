import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../src/config/index.js";
import { keySources } from "../src/cli/upstream-keys.js";
import { freePort } from "./helpers/free-port.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { refusalOf, STRICT_KINDS } from "./helpers/strict/index.js";

/**
 * SPEC section 10 (all but translation) with real servers on loopback: routing by model, a key per upstream that no
 * other upstream ever sees, provider layouts, static and key headers, fallback before the first byte, and the
 * union of the model lists.
 */

const opened = closeAfterEach();
let gateway: TestGateway;

/**
 * An upstream that answers every chat call with its own name, and every model list with `<name>-model`; a chat call
 * that breaks what every chat server refuses gets the generic strict fake's 400 (some come translated).
 */
async function named(name: string) {
  const upstream = opened(await startFakeUpstream({ script: (req) => {
    const refused = refusalOf(STRICT_KINDS.generic, req);
    if (refused) return refused;
    if (req.method === "GET" && req.path.endsWith("/models")) {
      if (req.path.includes("v1beta")) return { json: { models: [{ name: `models/${name}-model`, displayName: `${name} model` }] } };
      return { json: { object: "list", data: [{ id: `${name}-model`, object: "model", created: 1700000000, owned_by: name }] } };
    }
    return { json: completion({ content: `from ${name}` }) };
  } }));
  return upstream;
}

/** A gateway whose keys come from an in-memory keychain and `env`, resolved as the CLI resolves them. */
async function startWith(file: Record<string, unknown>, options: { keychain?: Record<string, string>; env?: NodeJS.ProcessEnv } = {}) {
  const store = memoryKeyStore(options.keychain);
  const env = options.env ?? {};
  gateway = opened(await startTestGateway(undefined, { file, env, keySourceFor: (config: GatewayConfig) => keySources({ config, env, store }) }));
  return gateway;
}

const chat = (model: string, headers: Record<string, string> = {}) =>
  rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: { ...chatHeaders(LOCAL_KEY), ...headers }, body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }) });

describe("routing by model", () => {
  it("sends an exact id to the first upstream listing it, a pattern match to the first matching one, the rest to the default", async () => {
    const [main, local, other] = [await named("main"), await named("local"), await named("other")];
    await startWith({
      upstream: main.url,
      upstreams: {
        local: { url: local.url, key: "none", models: ["qwen*", "llama3"] },
        other: { url: other.url, key: "none", models: ["llama3", "gpt-x", "q*"] },
      },
    }, { keychain: { [main.url]: "sk-main-0123456789" } });
    for (const [model, expected] of [["llama3", "local"], ["qwen2.5-coder", "local"], ["gpt-x", "other"], ["qx", "other"], ["claude-x", "default"]] as const) {
      const res = await chat(model);
      expect(res.status, model).toBe(200);
      expect(res.headers["x-gateway-upstream"], model).toBe(expected);
      expect(JSON.parse(res.body).choices[0].message.content, model).toBe(`from ${expected === "default" ? "main" : expected}`);
    }
    expect(gateway.records.map((r) => r.upstream)).toEqual(["local", "local", "other", "other", "default"]);
  });

  it("routes after the alias: the alias's target picks the upstream", async () => {
    const [main, local] = [await named("main"), await named("local")];
    await startWith({ upstream: main.url, models: { fast: "qwen3:8b" }, upstreams: { local: { url: local.url, key: "none", models: ["qwen*"] } } });
    const res = await chat("fast");
    expect(res.headers["x-gateway-upstream"]).toBe("local");
    expect(local.last().body).toMatchObject({ model: "qwen3:8b" });
    expect(gateway.records.at(-1)).toMatchObject({ model: "fast", target: "qwen3:8b", upstream: "local" });
  });
});

describe("keys: each upstream only ever sees its own", () => {
  it("keychain per origin, env:<VAR> read at each request, none sends no credential at all", async () => {
    const [main, team, local] = [await named("main"), await named("team"), await named("local")];
    const env: NodeJS.ProcessEnv = { TEAM_KEY: "sk-team-0123456789" };
    await startWith(
      {
        upstream: main.url,
        upstreams: { team: { url: team.url, key: "env:TEAM_KEY", models: ["team-*"] }, local: { url: local.url, key: "none", models: ["local-*"] } },
      },
      { keychain: { [main.url]: "sk-main-0123456789" }, env },
    );
    await chat("main-model", { "x-api-key": "sk-sent-by-client-123", "x-goog-api-key": "sk-sent-by-client-456" });
    await chat("team-model");
    await chat("local-model", { authorization: `Bearer ${LOCAL_KEY}` });
    expect(main.last().headers.authorization).toBe("Bearer sk-main-0123456789");
    expect(team.last().headers.authorization).toBe("Bearer sk-team-0123456789");
    for (const name of ["authorization", "x-api-key", "x-goog-api-key"]) {
      expect(local.last().headers[name], name).toBeUndefined();
      expect(main.last().headers[name === "authorization" ? "x-api-key" : name], name).toBeUndefined();
    }
    const everything = [...main.received, ...team.received, ...local.received].map((r) => JSON.stringify(r.headers)).join("\n");
    expect(everything).not.toContain(LOCAL_KEY);
    expect(JSON.stringify(team.received.map((r) => r.headers))).not.toContain("sk-main-0123456789");
    expect(JSON.stringify(main.received.map((r) => r.headers))).not.toContain("sk-team-0123456789");

    // The variable is read at each request: emptied, the upstream answers 503 naming it; set again, it works.
    env.TEAM_KEY = "";
    const missing = await chat("team-model");
    expect(missing.status).toBe(503);
    expect(missing.headers["x-gateway-upstream"]).toBe("team");
    expect(JSON.parse(missing.body)).toEqual({
      error: {
        message: "The upstream team takes its key from $TEAM_KEY, which is not set in the gateway's environment, so nothing is forwarded to it. Set TEAM_KEY and restart the gateway.",
        type: "api_error",
        param: null,
        code: "no_upstream_key",
      },
    });
    expect(team.received).toHaveLength(1);
    env.TEAM_KEY = "sk-team-rotated-42";
    expect((await chat("team-model")).status).toBe(200);
    expect(team.last().headers.authorization).toBe("Bearer sk-team-rotated-42");
  });

  it("a keychain upstream without a key answers 503 naming `gateway login <name>` while the default keeps working", async () => {
    const [main, other] = [await named("main"), await named("other")];
    await startWith({ upstream: main.url, upstreams: { other: { url: other.url, models: ["o-*"] } } }, { keychain: { [main.url]: "sk-main-0123456789" } });
    const res = await chat("o-1");
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).error.message).toBe(`No upstream key is stored for ${other.url}, so the gateway forwards nothing to the upstream other. Store one with \`gateway login other\`.`);
    expect(other.received).toHaveLength(0);
    expect((await chat("anything")).status).toBe(200);
  });

  it("keyHeader carries the bare key in every format; static headers are added and win over the client's", async () => {
    const portkey = await named("portkey");
    await startWith(
      { upstreams: { portkey: { url: portkey.url, keyHeader: "x-portkey-api-key", headers: { "x-portkey-provider": "openai", "HTTP-Referer": "https://example.com" } } } },
      { keychain: { [portkey.url]: "pk-0123456789" } },
    );
    await chat("m", { "x-portkey-provider": "anthropic" });
    const sent = portkey.last().headers;
    expect(sent["x-portkey-api-key"]).toBe("pk-0123456789");
    expect(sent.authorization).toBeUndefined();
    expect(sent["x-portkey-provider"]).toBe("openai");
    expect(sent["http-referer"]).toBe("https://example.com");
    await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", max_tokens: 5, messages: [] }) });
    expect(portkey.last().path).toBe("/anthropic/v1/messages");
    expect(portkey.last().headers["x-portkey-api-key"]).toBe("pk-0123456789");
    expect(portkey.last().headers["x-api-key"]).toBeUndefined();
  });

  it("a keyHeader written in any case replaces the client's header of that name instead of going beside it", async () => {
    const portkey = await named("portkey");
    await startWith({ upstreams: { portkey: { url: portkey.url, keyHeader: "X-Portkey-Api-Key" } } }, { keychain: { [portkey.url]: "pk-0123456789" } });
    await chat("m", { authorization: `Bearer ${LOCAL_KEY}`, "x-portkey-api-key": LOCAL_KEY });
    expect(portkey.last().headers["x-portkey-api-key"]).toBe("pk-0123456789");
    expect(JSON.stringify(portkey.received.map((r) => r.headers))).not.toContain(LOCAL_KEY);
  });
});

describe("provider layouts: empty segments", () => {
  it("serves messages, count_tokens, the Anthropic list and Gemini at the upstream's root, as LiteLLM and Anthropic's and Google's own APIs do", async () => {
    const root = opened(await startFakeUpstream({ script: (req) => ({ json: { path: req.path } }) }));
    await startWith({ upstream: "litellm", upstreams: { litellm: { url: root.url, key: "none", messagesSegment: "", geminiSegment: "" } } });
    const calls: [string, string, Record<string, string>][] = [
      ["POST", "/v1/messages?beta=true", messagesHeaders(LOCAL_KEY)],
      ["POST", "/anthropic/v1/messages/count_tokens", messagesHeaders(LOCAL_KEY)],
      ["GET", "/anthropic/v1/models", messagesHeaders(LOCAL_KEY)],
      ["POST", "/gemini/v1beta/models/gemini-x:generateContent", { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" }],
      ["POST", "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", { "x-goog-api-key": LOCAL_KEY, "content-type": "application/json" }],
    ];
    const bodies = [{ model: "m", max_tokens: 5, messages: [] }, { model: "m", messages: [] }, undefined, { contents: [] }, { contents: [] }];
    const seen: string[] = [];
    for (const [i, [method, path, headers]] of calls.entries()) {
      const res = await rawRequest(gateway.url, { method, path, headers, body: bodies[i] === undefined ? undefined : JSON.stringify(bodies[i]) });
      expect(res.status, path).toBe(200);
      seen.push(root.last().url);
    }
    expect(seen).toEqual(["/v1/messages?beta=true", "/v1/messages/count_tokens", "/v1/models", "/v1beta/models/gemini-x:generateContent", "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"]);
  });
});

describe("fallback before the first byte", () => {
  it("walks the routed upstream's own list on 503 and on a refused connection, and records every upstream tried", async () => {
    const [busy, spare] = [opened(await startFakeUpstream({ script: () => ({ status: 503, json: { error: { message: "overloaded" } } }) })), await named("spare")];
    const dead = `http://127.0.0.1:${await freePort()}`;
    await startWith({
      upstream: "busy",
      retries: 0,
      upstreams: { busy: { url: busy.url, key: "none", fallback: ["dead", "spare"] }, dead: { url: dead, key: "none" }, spare: { url: spare.url, key: "none" } },
    });
    const res = await chat("m");
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("spare");
    expect(JSON.parse(res.body).choices[0].message.content).toBe("from spare");
    const record = gateway.records.at(-1)!;
    expect(record.upstream).toBe("spare");
    expect(record.tried!.map(({ upstream, failure }) => ({ upstream, failure }))).toEqual([
      { upstream: "busy", failure: "upstream 503" },
      { upstream: "dead", failure: "unreachable" },
    ]);
  });

  it("never falls back on a 4xx other than 429, and passes the last failure through when every upstream fails", async () => {
    const refusing = opened(await startFakeUpstream({ script: () => ({ status: 400, json: { error: { message: "bad model", type: "invalid_request_error" } } }) }));
    const failing = opened(await startFakeUpstream({ script: () => ({ status: 500, json: { error: { message: "broken" } } }) }));
    const spare = await named("spare");
    await startWith({
      upstream: "refusing",
      retries: 0,
      upstreams: {
        refusing: { url: refusing.url, key: "none", fallback: ["spare"] },
        failing: { url: failing.url, key: "none", models: ["f-*"], fallback: ["failing2"] },
        failing2: { url: failing.url, key: "none" },
        spare: { url: spare.url, key: "none" },
      },
    });
    const bad = await chat("m");
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe("bad model");
    expect(spare.received).toHaveLength(0);
    const down = await chat("f-1");
    expect(down.status).toBe(500);
    expect(down.headers["x-gateway-upstream"]).toBe("failing2");
    expect(JSON.parse(down.body)).toEqual({ error: { message: "broken" } });
    expect(failing.received).toHaveLength(2);
  });
});

describe("model lists: the union", () => {
  it("lists every upstream's models in file order, the default first, converting shapes, each id once, then the aliases", async () => {
    const [main, local] = [await named("main"), await named("local")];
    const gem = opened(await startFakeUpstream({ script: () => ({ json: { models: [{ name: "models/gem-model", displayName: "Gem" }, { name: "models/main-model" }] } }) }));
    await startWith({
      upstream: main.url,
      models: { fast: "local-model" },
      upstreams: { local: { url: local.url, key: "none", formats: ["chat"] }, gem: { url: gem.url, key: "none", formats: ["gemini"] } },
    }, { keychain: { [main.url]: "sk-main-0123456789" } });
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("default,local,gem");
    expect(res.headers["x-gateway-partial"]).toBeUndefined();
    expect(JSON.parse(res.body).data.map((m: { id: string; owned_by: string }) => `${m.id}:${m.owned_by}`)).toEqual([
      "main-model:main",
      "local-model:local",
      "gem-model:gem",
      "fast:gateway-alias",
    ]);
    expect(gem.last().path).toBe("/gemini/v1beta/models");
    const gemini = await rawRequest(gateway.url, { path: "/v1beta/models", headers: { "x-goog-api-key": LOCAL_KEY } });
    expect(JSON.parse(gemini.body).models.map((m: { name: string }) => m.name)).toEqual(["models/main-model", "models/local-model", "models/gem-model", "models/fast"]);
  });

  it("leaves out an upstream that fails or hangs (within its first-byte timeout) and names it in x-gateway-partial", async () => {
    const main = await named("main");
    const hanging = opened(await startFakeUpstream({ script: () => new Promise(() => {}) }));
    const broken = opened(await startFakeUpstream({ script: () => ({ status: 500, json: { error: { message: "no" } } }) }));
    await startWith({
      upstream: main.url,
      retries: 0,
      upstreams: { hanging: { url: hanging.url, key: "none", timeouts: { firstByteMs: 300 } }, broken: { url: broken.url, key: "none" } },
    }, { keychain: { [main.url]: "sk-main-0123456789" } });
    const started = performance.now();
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(res.status).toBe(200);
    expect(res.headers["x-gateway-upstream"]).toBe("default");
    expect(res.headers["x-gateway-partial"]).toBe("hanging,broken");
    expect(JSON.parse(res.body).data.map((m: { id: string }) => m.id)).toEqual(["main-model"]);
  });

  it("passes the default's error through when every upstream fails", async () => {
    const refusing = opened(await startFakeUpstream({ script: () => ({ status: 401, json: { error: { message: "who are you" } } }) }));
    await startWith({ upstream: "a", upstreams: { a: { url: refusing.url, key: "none" }, b: { url: refusing.url, key: "none" } } });
    const res = await rawRequest(gateway.url, { path: "/v1/models", headers: chatHeaders(LOCAL_KEY) });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ error: { message: "who are you" } });
    expect(res.headers["x-gateway-partial"]).toBe("a,b");
  });
});

describe("/health", () => {
  it("lists every upstream by name, kind, origin (never a path or a key) and the formats in effect", async () => {
    const local = await named("local");
    const vllm = await named("vllm");
    await startWith({ upstream: "echo", upstreams: { local: { url: `${local.url}/some/path`, key: "none", formats: ["chat"] }, gpu: { kind: "vllm", url: vllm.url } } });
    const health = JSON.parse((await rawRequest(gateway.url, { path: "/health" })).body);
    expect(health.upstreams).toEqual([
      { name: "default", kind: "echo", url: "echo", formats: ["chat", "responses", "messages", "gemini"] },
      { name: "local", kind: "generic", url: local.url, formats: ["chat"] },
      { name: "gpu", kind: "vllm", url: vllm.url, formats: ["chat"] },
    ]);
  });
});
