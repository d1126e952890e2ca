import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keySources } from "../src/cli/upstream-keys.js";
import type { GatewayConfig } from "../src/config/index.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { scripted } from "./helpers/chat-script.js";
import { LOCAL_KEY, startTestGateway, type TestGateway } from "./helpers/gateway.js";
import { memoryKeyStore } from "./helpers/key-store.js";
import { startFakeUpstream, type Received } from "./helpers/fake-upstream.js";

/**
 * docs/configuration.md's "Several upstreams" recipes, run as written (their JSON, with each provider's URL pointed at a fake on
 * loopback), against fakes that serve exactly the paths each real provider serves and refuse what lacks exactly the
 * headers it demands.
 */

const readme = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");

/** The JSON block that follows a bold recipe title in docs/configuration.md. */
function recipe(title: string): Record<string, unknown> {
  const at = readme.indexOf(`**${title}`);
  if (at < 0) throw new Error(`docs/configuration.md has no recipe "${title}"`);
  return JSON.parse(/```json\n([\s\S]*?)```/.exec(readme.slice(at))![1]!) as Record<string, unknown>;
}

/** The recipe with each real URL replaced by a fake's, as a user would point it at a test server. */
function pointed(config: Record<string, unknown>, urls: Record<string, string>): Record<string, unknown> {
  let text = JSON.stringify(config);
  for (const [real, fake] of Object.entries(urls)) text = text.split(`"${real}"`).join(`"${fake}"`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The recipe with the entries that take their address from their kind given a fake's, as a user whose server runs elsewhere writes `url`. */
function placed(config: Record<string, unknown>, urls: Record<string, string>): Record<string, unknown> {
  const upstreams = config.upstreams as Record<string, Record<string, unknown>>;
  for (const [name, url] of Object.entries(urls)) {
    expect(upstreams[name], name).toMatchObject({ kind: expect.any(String) });
    expect(upstreams[name]!.url, name).toBeUndefined();
    upstreams[name] = { ...upstreams[name], url };
  }
  return config;
}

/** What a provider checks before it answers: its path layout, and the headers that carry its key. */
interface Provider {
  /** Paths it serves, exactly. */
  serves: (path: string) => boolean;
  /** Whether the request carries exactly the credentials (and headers) it demands. */
  accepts: (headers: Received["headers"]) => boolean;
  /** A model it is too busy for: 429, as LiteLLM answers when its provider's limit is hit. */
  busy?: string;
}

const opened = closeAfterEach();
let gateway: TestGateway;

/** A fake provider: 404 off its paths, 401 without its headers, else a small valid reply in the format of the path. */
async function provider(p: Provider) {
  const fake = opened(await startFakeUpstream({ script: (req) => {
    if (!p.serves(req.path)) return { status: 404, json: { error: { message: `no route ${req.path}` } } };
    if (!p.accepts(req.headers)) return { status: 401, json: { error: { message: "missing or wrong credentials" } } };
    if (p.busy !== undefined && req.body?.model === p.busy) return { status: 429, headers: { "retry-after": "0" }, json: { error: { message: "rate limited" } } };
    if (req.path.endsWith("/messages")) {
      return { json: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "from messages" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 3, output_tokens: 2 } } };
    }
    if (req.path.includes(":generateContent")) return { json: { candidates: [{ content: { role: "model", parts: [{ text: "from gemini" }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 } } };
    return scripted({ text: "from chat" })(req);
  } }));
  return fake;
}

const bearer = (key: string) => (headers: Received["headers"]) => headers.authorization === `Bearer ${key}` && headers["x-api-key"] === undefined;
const anthropicKey = (key: string) => (headers: Received["headers"]) => headers["x-api-key"] === key && headers["anthropic-version"] !== undefined && headers.authorization === undefined;

async function start(config: Record<string, unknown>, keychain: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const store = memoryKeyStore(keychain);
  gateway = opened(await startTestGateway(undefined, { file: config, env, keySourceFor: (c: GatewayConfig) => keySources({ config: c, env, store }) }));
  return {
    anthropic: new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 }),
    openai: new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: gateway.url } }),
  };
}

describe("the manual's recipes for several upstreams", () => {
  it("a remote gateway, and a local Ollama for Qwen and Llama", async () => {
    const remote = await provider({ serves: (path) => ["/v1/chat/completions", "/anthropic/v1/messages"].includes(path) || path.startsWith("/gemini/v1beta/"), accepts: (h) => h.authorization === "Bearer sk-remote" || h["x-api-key"] === "sk-remote" || h["x-goog-api-key"] === "sk-remote" });
    // Ollama's OpenAI-compatible API: chat only, and it wants no key at all.
    const ollama = await provider({ serves: (path) => path === "/v1/chat/completions", accepts: (h) => h.authorization === undefined && h["x-api-key"] === undefined });
    const clients = await start(placed(pointed(recipe("A remote gateway, and a local Ollama"), { "https://gateway.example.com": remote.url }), { ollama: ollama.url }), { [remote.url]: "sk-remote" });
    const claude = await clients.anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(claude.content).toEqual([{ type: "text", text: "from messages" }]);
    // Claude Code asks for 32,000-64,000 output tokens; the recipe caps what reaches Ollama.
    const qwen = await clients.anthropic.messages.stream({ model: "qwen3-coder", max_tokens: 64_000, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(qwen.content).toEqual([{ type: "text", text: "from chat" }]);
    expect(ollama.last().body).toMatchObject({ model: "qwen3-coder", max_tokens: 8192 });
    const llama = await clients.openai.chat.completions.create({ model: "llama3.3", messages: [{ role: "user", content: "hi" }] });
    expect(llama.choices[0]!.message.content).toBe("from chat");
    expect(remote.received.map((r) => r.path)).toEqual(["/anthropic/v1/messages"]);
    expect(ollama.received).toHaveLength(2);
  });

  it("Anthropic's and Google's own APIs, with empty segments", async () => {
    const anthropic = await provider({ serves: (path) => path === "/v1/messages", accepts: anthropicKey("sk-ant") });
    const google = await provider({ serves: (path) => /^\/v1beta\/models\/[^/]+:generateContent$/.test(path), accepts: (h) => h["x-goog-api-key"] === "AIza-google" && h.authorization === undefined });
    const clients = await start(placed(recipe("Anthropic's and Google's own APIs"), { anthropic: anthropic.url, google: google.url }), {
      [anthropic.url]: "sk-ant",
      [google.url]: "AIza-google",
    });
    expect((await clients.anthropic.messages.create({ model: "claude-opus-4-1", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })).content).toEqual([{ type: "text", text: "from messages" }]);
    expect((await clients.gemini.models.generateContent({ model: "gemini-2.5-pro", contents: "hi" })).text).toBe("from gemini");
    // A chat client on Anthropic's own API: translated, since Anthropic serves only messages.
    expect((await clients.openai.chat.completions.create({ model: "claude-opus-4-1", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content).toBe("from messages");
    expect(anthropic.received.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
    expect(google.last().path).toBe("/v1beta/models/gemini-2.5-pro:generateContent");
  });

  it("OpenRouter, falling back to the remote gateway", async () => {
    const openrouter = await provider({
      serves: (path) => path === "/api/v1/chat/completions",
      accepts: (h) => bearer("sk-or-v1-test")(h) && h["http-referer"] === "https://github.com/you/your-project" && h["x-title"] === "my-team",
    });
    const remote = await provider({ serves: (path) => path === "/v1/chat/completions", accepts: bearer("sk-remote") });
    const config = placed(pointed(recipe("OpenRouter, falling back"), { "https://gateway.example.com": remote.url }), { openrouter: `${openrouter.url}/api` });
    const env: NodeJS.ProcessEnv = { OPENROUTER_API_KEY: "sk-or-v1-test" };
    const clients = await start(config, { [remote.url]: "sk-remote" }, env);
    expect((await clients.openai.chat.completions.create({ model: "deepseek/deepseek-chat", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content).toBe("from chat");
    expect(openrouter.received).toHaveLength(1);
    // OpenRouter overloaded: the same request lands on the remote gateway, with the remote's key only.
    openrouter.script(() => ({ status: 503, json: { error: { message: "no provider available" } } }));
    const fallen = await clients.openai.chat.completions.create({ model: "deepseek/deepseek-chat", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(fallen.response.headers.get("x-gateway-upstream")).toBe("default");
    expect(remote.last().headers.authorization).toBe("Bearer sk-remote");
    expect(gateway.records.at(-1)!.tried).toEqual([expect.objectContaining({ upstream: "openrouter", failure: "upstream 503" })]);
  });

  it("other gateways: LiteLLM at its root, Portkey's key header and routing header, Azure's api-key", async () => {
    const litellm = await provider({ busy: "claude-busy", serves: (path) => ["/v1/chat/completions", "/v1/messages"].includes(path) || path.startsWith("/v1beta/models/"), accepts: (h) => h.authorization === "Bearer sk-litellm" || h["x-api-key"] === "sk-litellm" || h["x-goog-api-key"] === "sk-litellm" });
    const portkey = await provider({ serves: (path) => path === "/v1/chat/completions", accepts: (h) => h["x-portkey-api-key"] === "pk-test" && h["x-portkey-config"] === "pc-my-config-id" && h.authorization === undefined });
    const azure = await provider({ serves: (path) => path === "/openai/v1/chat/completions", accepts: (h) => h["api-key"] === "az-test" && h.authorization === undefined });
    const config = pointed(recipe("Other gateways"), { "http://localhost:4000": litellm.url, "https://api.portkey.ai": portkey.url, "https://my-resource.openai.azure.com/openai": `${azure.url}/openai` });
    const env: NodeJS.ProcessEnv = { LITELLM_MASTER_KEY: "sk-litellm" };
    const clients = await start(config, { [portkey.url]: "pk-test", [azure.url]: "az-test" }, env);
    expect((await clients.anthropic.messages.create({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })).content[0]).toMatchObject({ text: "from messages" });
    expect((await clients.gemini.models.generateContent({ model: "gemini-x", contents: "hi" })).text).toBe("from gemini");
    expect(litellm.received.map((r) => r.path)).toEqual(["/v1/messages", "/v1beta/models/gemini-x:generateContent"]);
    // LiteLLM retries on its own: with the recipe's retries 0 its 429 reaches the client after one call, not three.
    const busy = await clients.anthropic.messages.create({ model: "claude-busy", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(Anthropic.RateLimitError);
    expect(litellm.received.filter((r) => r.body?.model === "claude-busy")).toHaveLength(1);
    expect((await clients.openai.chat.completions.create({ model: "portkey/gpt-4o", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content).toBe("from chat");
    expect((await clients.openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content).toBe("from chat");
    expect(azure.received).toHaveLength(1);
  });
});
