import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import type { KindName } from "../src/kinds/index.js";
import { scripted } from "./helpers/chat-script.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream, type Received } from "./helpers/fake-upstream.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { messagesHeaders, rawRequest } from "./helpers/http.js";
import { startStrictFake, STRICT_KINDS, type StrictKind } from "./helpers/strict/index.js";

/**
 * SPEC 11, Kinds, through the real server: each kind's quirks reach an upstream of that kind and no other. Each kind's
 * chat upstream is its strict fake (which refuses what that server refuses) on its real path (OpenRouter's under
 * `/api`), and records what it got.
 */

const opened = closeAfterEach();

/** Where each kind's chat path lives under its usual base URL. */
const BASE_PATH: Partial<Record<KindName, string>> = { openrouter: "/api" };

/** A fake chat server of `kind`: its strict fake where the suite has one (test/helpers/strict), else the lenient one. */
async function chatServerOf(kind: KindName): Promise<FakeUpstream> {
  const strict = (STRICT_KINDS as Partial<Record<string, StrictKind>>)[kind];
  return opened(strict ? await startStrictFake(strict, { script: scripted({ text: "ok" }) }) : await startFakeUpstream({ script: scripted({ text: "ok" }) }));
}

/** A gateway with one chat-only upstream per kind, model `m-<kind>` routed to it, each in front of its kind's fake. */
async function gatewayOverKinds(kinds: readonly KindName[], entry: Record<string, unknown> = { formats: ["chat"] }) {
  const fakes = new Map<KindName, FakeUpstream>();
  for (const kind of kinds) fakes.set(kind, await chatServerOf(kind));
  const upstreams = Object.fromEntries(kinds.map((kind) => [kind, { kind, url: `${fakes.get(kind)!.url}${BASE_PATH[kind] ?? ""}`, models: [`m-${kind}`], ...entry }]));
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams } }));
  /** What the upstream of `kind` got for the one request to its model. */
  const receivedBy = (kind: KindName): Received => {
    const got = fakes.get(kind)!.received.filter((request) => request.body?.model === `m-${kind}`);
    expect(got, kind).toHaveLength(1);
    return got[0]!;
  };
  return { gateway, receivedBy };
}

describe("hub quirks on a translated route reach only their kind (SPEC 11, Kinds)", () => {
  const KINDS_TRIED: readonly KindName[] = ["openai", "openrouter", "deepseek", "ollama", "vllm", "llamacpp", "generic"];

  it("Codex's prompt_cache_key reaches OpenAI and OpenRouter only; output limit and effort go in each kind's own words", async () => {
    const { gateway, receivedBy } = await gatewayOverKinds(KINDS_TRIED);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (const kind of KINDS_TRIED) {
      const reply = await client.responses.create({ model: `m-${kind}`, input: "hi", prompt_cache_key: "019a-session", max_output_tokens: 1000, reasoning: { effort: "high" } });
      expect(reply.output_text, kind).toBe("ok");
    }
    const sent = Object.fromEntries(KINDS_TRIED.map((kind) => [kind, receivedBy(kind)]));
    for (const kind of KINDS_TRIED) expect(sent[kind]!.path, kind).toBe(`${BASE_PATH[kind] ?? ""}/v1/chat/completions`);
    const has = (field: string) => KINDS_TRIED.filter((kind) => sent[kind]!.body![field] !== undefined);
    expect(has("prompt_cache_key")).toEqual(["openai", "openrouter"]);
    expect(sent.openai!.body!.prompt_cache_key).toBe("019a-session");
    expect(has("max_completion_tokens")).toEqual(["openai"]);
    expect(sent.openai!.body!.max_completion_tokens).toBe(1000);
    expect(has("max_tokens")).toEqual(KINDS_TRIED.filter((kind) => kind !== "openai"));
    // Effort: chat's own field where the kind takes it (generic only with `"reasoning": "effort"`, which it lacks).
    expect(has("reasoning_effort")).toEqual(["openai", "ollama", "vllm", "llamacpp"]);
    expect(sent.openrouter!.body!.reasoning).toEqual({ effort: "high" });
    expect(sent.deepseek!.body!.thinking).toEqual({ type: "enabled" });
    expect(has("chat_template_kwargs")).toEqual(["vllm"]);
    expect(sent.vllm!.body!.chat_template_kwargs).toEqual({ enable_thinking: true, thinking: true });
  });

  it("a Codex compaction on a translated route keeps its prompt_cache_key for OpenAI, whose cache then serves the conversation's prefix", async () => {
    const { gateway, receivedBy } = await gatewayOverKinds(["openai", "ollama"]);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const input = [{ role: "user", content: "list files" }, { type: "compaction_trigger" }] as unknown as OpenAI.Responses.ResponseInput;
    for (const kind of ["openai", "ollama"] as const) await client.responses.create({ model: `m-${kind}`, input, prompt_cache_key: "019a-session", store: false });
    expect(receivedBy("openai").body!.prompt_cache_key).toBe("019a-session");
    expect(receivedBy("ollama").body!.prompt_cache_key).toBeUndefined();
  });

  it("llama.cpp gets `{}` where a tool schema says `true` (its grammar converter refuses it); every other kind gets the schema as sent", async () => {
    const kinds: KindName[] = ["llamacpp", "vllm", "ollama", "generic"];
    const { gateway, receivedBy } = await gatewayOverKinds(kinds);
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    const parameters = { type: "object", properties: { paths: { type: "array", items: true } }, additionalProperties: false };
    for (const kind of kinds) await client.responses.create({ model: `m-${kind}`, input: "list", tools: [{ type: "function", name: "ls", parameters, strict: false }] });
    const schema = (kind: KindName) => (receivedBy(kind).body!.tools as { function: { parameters: unknown } }[])[0]!.function.parameters;
    expect(schema("llamacpp")).toEqual({ ...parameters, properties: { paths: { type: "array", items: {} } } });
    for (const kind of ["vllm", "ollama", "generic"] as const) expect(schema(kind), kind).toEqual(parameters);
  });
});

/** A messages server: every `/v1/messages` call answered with one text reply, anything else as a chat server. */
const messagesServer = (request: Received) =>
  request.path.endsWith("/v1/messages")
    ? { json: { id: "msg_1", type: "message", role: "assistant", model: String(request.body?.model), content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }
    : scripted({ text: "ok" })(request);

describe("the key in each kind's header (SPEC 11, Kinds)", () => {
  it("vLLM and OpenRouter get `Authorization: Bearer` on their messages endpoints too; DeepSeek and generic get x-api-key", async () => {
    const upstream = opened(await startFakeUpstream({ script: messagesServer }));
    const kinds: KindName[] = ["vllm", "openrouter", "deepseek", "generic"];
    const upstreams = Object.fromEntries(kinds.map((kind) => [kind, { kind, url: `${upstream.url}${BASE_PATH[kind] ?? ""}`, formats: ["messages"], messagesSegment: "", key: "keychain", models: [`m-${kind}`] }]));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    for (const kind of kinds) await client.messages.create({ model: `m-${kind}`, max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    const auth = Object.fromEntries(upstream.received.map((request) => [request.body?.model, [request.path, request.headers.authorization, request.headers["x-api-key"]]]));
    expect(auth).toEqual({
      "m-vllm": ["/v1/messages", `Bearer ${FAKE_UPSTREAM_KEY}`, undefined],
      "m-openrouter": ["/api/v1/messages", `Bearer ${FAKE_UPSTREAM_KEY}`, undefined],
      "m-deepseek": ["/v1/messages", undefined, FAKE_UPSTREAM_KEY],
      "m-generic": ["/v1/messages", undefined, FAKE_UPSTREAM_KEY],
    });
  });
});

/** A Claude Code request as recorded or built: its headers and body. */
interface Recorded {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * `recorded` sent as Claude Code sends it, with its betas, to a messages upstream of each kind (model `m-<kind>`,
 * messages under `segment`, or the kind's own when undefined): what each sent, and what the fake server got for it.
 */
async function passedOn(kinds: readonly KindName[], recorded: Recorded, segment: string | undefined) {
  const upstream = opened(await startFakeUpstream({ script: messagesServer }));
  const upstreams = Object.fromEntries(kinds.map((kind) => [kind, { kind, url: upstream.url, formats: ["messages"], models: [`m-${kind}`], ...(segment === undefined ? {} : { messagesSegment: segment }) }]));
  const gateway = opened(await startTestGateway(undefined, { file: { upstreams } }));
  const sent = (kind: KindName) => JSON.stringify({ ...recorded.body, model: `m-${kind}` });
  for (const kind of kinds) {
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(LOCAL_KEY), "anthropic-beta": recorded.headers["anthropic-beta"]! }, body: sent(kind) });
    expect(res.status, kind).toBe(200);
  }
  const got = (kind: KindName) => upstream.received.find((request) => request.body?.model === `m-${kind}`)!;
  return { sent, got };
}

describe("betas and their body fields on a messages passthrough (SPEC 11, Kinds)", () => {
  const built = JSON.parse(readFileSync(new URL("fixtures/kinds/claude-code-2.1.197-betas.json", import.meta.url), "utf8")) as Recorded;

  it("Anthropic and generic get Claude Code's request byte for byte; DeepSeek, Ollama and LiteLLM only the betas their kind takes, without the withheld ones' fields", async () => {
    const { sent, got } = await passedOn(["anthropic", "generic", "deepseek", "ollama", "litellm"], built, undefined);
    for (const kind of ["anthropic", "generic"] as const) {
      expect(got(kind).raw.toString(), kind).toBe(sent(kind));
      expect(got(kind).headers["anthropic-beta"], kind).toBe(built.headers["anthropic-beta"]);
    }
    expect(got("deepseek").path).toBe("/anthropic/v1/messages");
    expect(got("deepseek").headers["anthropic-beta"]).toBeUndefined();
    const fields = (kind: KindName) => ["context_management", "diagnostics", "speed"].filter((field) => field in got(kind).body!);
    expect(fields("deepseek")).toEqual([]);
    expect((got("deepseek").body!.tools as { type?: string; defer_loading?: boolean }[]).some((tool) => tool.type?.startsWith("advisor") || tool.defer_loading)).toBe(false);
    expect(JSON.stringify(got("deepseek").body!.messages)).toContain("The user switched to plan mode.");
    expect(got("ollama").path).toBe("/v1/messages");
    expect(got("ollama").headers["anthropic-beta"]).toBe("mid-conversation-system-2026-04-07");
    expect(fields("ollama")).toEqual([]);
    expect(got("litellm").headers["anthropic-beta"]).not.toContain("cache-diagnosis-2026-04-07");
    expect(fields("litellm")).toEqual(["context_management", "speed"]);
  });

  it("Claude Code's billing line reaches Anthropic and generic only: its per-turn hash would defeat any other server's prompt cache", async () => {
    const recorded = JSON.parse(readFileSync(new URL("fixtures/claude-code-2.1.197-messages.json", import.meta.url), "utf8")) as Recorded;
    const { sent, got } = await passedOn(["anthropic", "generic", "ollama", "deepseek"], recorded, "");
    for (const kind of ["anthropic", "generic"] as const) expect(got(kind).raw.toString(), kind).toBe(sent(kind));
    const { context_management: _withheld, ...rest } = recorded.body;
    for (const kind of ["ollama", "deepseek"] as const) {
      expect(got(kind).body, kind).toEqual({ ...rest, model: `m-${kind}`, system: (recorded.body.system as unknown[]).slice(1) });
    }
  });

  it("a request with no beta field to a kind with an allow-list goes byte for byte, its beta header alone trimmed", async () => {
    const upstream = opened(await startFakeUpstream({ script: messagesServer }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { local: { kind: "ollama", url: upstream.url, formats: ["messages"] } } } }));
    const body = '{"model":"qwen3",  "max_tokens":10,"messages":[{"role":"user","content":"hi"}]}';
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: { ...messagesHeaders(LOCAL_KEY), "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14" }, body });
    expect(res.status).toBe(200);
    expect(upstream.received[0]!.raw.toString()).toBe(body);
    expect(upstream.received[0]!.headers["anthropic-beta"]).toBeUndefined();
  });
});

describe("a model's context window from its server's model list (SPEC 11, Kinds: vLLM's max_model_len)", () => {
  /** A vLLM that lists `qwen` with a 32K window, and answers every chat call. */
  const vllmServer = (request: Received) =>
    request.method === "GET" && request.path === "/v1/models"
      ? { json: { object: "list", data: [{ id: "qwen", object: "model", created: 0, owned_by: "vllm", root: "Qwen/Qwen3-8B", max_model_len: 32768 }] } }
      : scripted({ text: "ok" })(request);

  it("the first translated request starts one list fetch beside it, and the ones after it ask for no more output than the window leaves", async () => {
    const upstream = opened(await startFakeUpstream({ script: vllmServer }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { vllm: { kind: "vllm", url: upstream.url }, other: { url: upstream.url, formats: ["chat"], models: ["qwen-generic"] } } } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const prompt = "word ".repeat(20_000);
    const ask = (model: string) => client.messages.create({ model, max_tokens: 32_000, messages: [{ role: "user", content: prompt }] }, { timeout: 60_000 });
    const maxTokensSent = () => upstream.received.filter((request) => request.method === "POST").map((request) => request.body!.max_tokens as number);
    await ask("qwen");
    expect(maxTokensSent()).toEqual([32_000]);
    await vi.waitFor(() => expect(upstream.received.filter((request) => request.method === "GET").map((request) => request.path)).toEqual(["/v1/models"]));
    await ask("qwen");
    const capped = maxTokensSent()[1]!;
    // The prompt is about 25,000 tokens by the gateway's estimate: a quarter more of it, and the output, fit 32,768.
    expect(capped).toBeLessThan(32_768 - 25_000);
    expect(capped).toBeGreaterThan(32_768 - 25_000 * 1.3);
    await ask("qwen-generic");
    expect(maxTokensSent()[2]).toBe(32_000);
    expect(upstream.received.filter((request) => request.method === "GET")).toHaveLength(1);
  });
});

describe("a model list asked in its kind's own shape (SPEC 11, Kinds: model list shape)", () => {
  /** A server that lists `ids` at /v1/models in OpenAI's shape (as DeepSeek and Ollama do, whatever headers come) and knows no other list. */
  const openAiLister = (ids: readonly string[]) => (request: Received) =>
    request.method === "GET" && request.path === "/v1/models"
      ? { json: { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "library" })) } }
      : { status: 404, json: { error: { message: `no route ${request.path}` } } };

  /** A messages-shaped list (Claude Code's model picker asks this way): status, partial header and body. */
  async function messagesList(url: string) {
    const reply = await fetch(`${url}/v1/models`, { headers: { "x-api-key": LOCAL_KEY, "anthropic-version": "2023-06-01" } });
    return { status: reply.status, partial: reply.headers.get("x-gateway-partial"), body: (await reply.json()) as { data: Record<string, unknown>[] } };
  }

  it("DeepSeek and an Ollama that serves messages too are asked at /v1/models, and every entry comes back in the messages shape", async () => {
    const deepseek = opened(await startFakeUpstream({ script: openAiLister(["deepseek-chat"]) }));
    const ollama = opened(await startFakeUpstream({ script: openAiLister(["qwen3:8b"]) }));
    const gateway = opened(
      await startTestGateway(undefined, {
        file: { upstream: "deepseek", upstreams: { deepseek: { kind: "deepseek", url: deepseek.url, key: "none" }, ollama: { kind: "ollama", url: ollama.url, formats: ["chat", "messages"] } } },
      }),
    );
    const { status, partial, body } = await messagesList(gateway.url);
    expect([status, partial]).toEqual([200, null]);
    expect(body.data.map((entry) => entry.id)).toEqual(["deepseek-chat", "qwen3:8b"]);
    for (const entry of body.data) expect(entry).toMatchObject({ type: "model", display_name: expect.any(String), created_at: expect.any(String) });
    for (const server of [deepseek, ollama]) expect(server.received.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);
  });

  it("a DeepSeek alone is not passed through from a list it does not have: the Anthropic SDK lists its models", async () => {
    const deepseek = opened(await startFakeUpstream({ script: openAiLister(["deepseek-chat", "deepseek-reasoner"]) }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstream: "deepseek", upstreams: { deepseek: { kind: "deepseek", url: deepseek.url, key: "none" } } } }));
    const client = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["deepseek-chat", "deepseek-reasoner"]);
    expect(deepseek.received.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);
  });
});
