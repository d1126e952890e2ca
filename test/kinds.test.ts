import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { applyBetaPolicy } from "../src/formats/messages/beta-policy.js";
import { applyHubQuirks } from "../src/formats/chat/hub-quirks.js";
import { KIND_NAMES, KINDS, RECOGNISABLE, type KindName } from "../src/kinds/index.js";
import type { HubRequest, Json } from "../src/translate/hub.js";

/**
 * Each kind's quirks, driven by wire shapes recorded (or built from the server's own code and docs) in
 * test/fixtures/kinds, each file naming its provenance in `source`.
 */

const fixture = <T>(name: string): T & { source: string } => JSON.parse(readFileSync(new URL(`./fixtures/kinds/${name}`, import.meta.url), "utf8")) as T & { source: string };
const recorded = JSON.parse(readFileSync(new URL("./fixtures/claude-code-2.1.197-messages.json", import.meta.url), "utf8")) as { headers: Record<string, string>; body: Json };

type Routes = { routes: { method: string; path: string; status?: number; json?: unknown }[]; unknown: { status: number; json?: unknown } };
const okStatus = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;
const replyOf = (routes: Routes, path: string) => routes.routes.find((route) => route.method === "GET" && route.path === path) ?? routes.unknown;

describe("kinds: the same surface for every server", () => {
  it("every kind has every field, and only local kinds default to no key and a loopback URL", () => {
    for (const name of KIND_NAMES) {
      const kind = KINDS[name];
      expect(kind.name).toBe(name);
      expect(Object.keys(kind).sort()).toEqual(["defaults", "local", "modelList", "name", "probe", "quirks", "title"]);
      expect(Object.keys(kind.quirks).sort()).toEqual(Object.keys(KINDS.generic.quirks).sort());
      expect(kind.defaults.key === "none").toBe(kind.local);
      if (kind.local) expect(kind.defaults.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    expect({ ollama: KINDS.ollama.defaults.url, llamacpp: KINDS.llamacpp.defaults.url, lmstudio: KINDS.lmstudio.defaults.url, vllm: KINDS.vllm.defaults.url }).toEqual({
      ollama: "http://127.0.0.1:11434",
      llamacpp: "http://127.0.0.1:8080",
      lmstudio: "http://127.0.0.1:1234",
      vllm: "http://127.0.0.1:8000",
    });
  });

  it("a probe never posts to a kind that bills by token", () => {
    const billing = KIND_NAMES.filter((name) => !KINDS[name].probe.mayGenerate);
    expect(billing).toEqual(["openai", "anthropic", "gemini", "openrouter", "deepseek", "litellm"]);
  });

  it("each recognisable server answers its own probe and no other's, as the fixtures from its code and docs show", () => {
    const servers: Record<string, Routes> = {
      ollama: fixture("ollama-routes.json"),
      vllm: fixture("vllm-routes.json"),
      llamacpp: fixture("llamacpp-routes.json"),
      lmstudio: fixture("lmstudio-routes.json"),
      litellm: fixture("litellm-routes.json"),
    };
    for (const [server, routes] of Object.entries(servers)) {
      const recognisedAs = RECOGNISABLE.filter((kind) => {
        const reply = replyOf(routes, kind.probe.recognise!.path);
        return okStatus(reply.status) && kind.probe.recognise!.matches(reply.json);
      }).map((kind) => kind.name);
      expect(recognisedAs, server).toEqual([server]);
    }
  });
});

describe("kinds: hub quirks", () => {
  const dialects = fixture<{ request: HubRequest; expected: Record<string, HubRequest> }>("reasoning-dialects.json");

  it("generic changes nothing: today's behaviour exactly", () => {
    const request = structuredClone(dialects.request);
    expect(applyHubQuirks(KINDS.generic.quirks, request)).toEqual(dialects.request);
    const withKey = { ...dialects.request, prompt_cache_key: "019a-session" };
    expect(applyHubQuirks(KINDS.generic.quirks, withKey)).toEqual(dialects.request);
  });

  it.each(Object.keys(dialects.expected))("%s: reasoning effort in its own dialect, replayed reasoning under its own field", (name) => {
    const request = structuredClone(dialects.request);
    expect(applyHubQuirks(KINDS[name as KindName].quirks, request)).toEqual(dialects.expected[name]);
    expect(request).toEqual(dialects.request);
  });

  it("vLLM and llama.cpp get one system message, first; later ones stay in place as user text, after a call's results", () => {
    const { messages, expected } = fixture<{ messages: HubRequest["messages"]; expected: HubRequest["messages"] }>("vllm-system-first.json");
    for (const name of ["vllm", "llamacpp"] as const) expect(applyHubQuirks(KINDS[name].quirks, { model: "m", messages }).messages).toEqual(expected);
    expect(applyHubQuirks(KINDS.ollama.quirks, { model: "m", messages }).messages).toEqual(messages);
  });

  it("llama.cpp: a boolean where a schema belongs becomes {} (its grammar converter refuses `true`), other kinds keep it", () => {
    const { parameters, expected } = fixture<{ parameters: Json; expected: Json }>("llamacpp-json-schema-to-grammar-boolean.json");
    const request: HubRequest = { model: "m", messages: [], tools: [{ type: "function", function: { name: "search", parameters } }] };
    expect(applyHubQuirks(KINDS.llamacpp.quirks, request).tools![0]!.function.parameters).toEqual(expected);
    expect(applyHubQuirks(KINDS.vllm.quirks, request).tools![0]!.function.parameters).toBe(parameters);
  });

  it("llama.cpp: a false sub-schema becomes {not: {}} (it refuses 'Unrecognized schema: false'), a keyword's false stays", () => {
    const parameters = { type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }], items: false }, never: false }, additionalProperties: false };
    const request: HubRequest = { model: "m", messages: [], tools: [{ type: "function", function: { name: "pairs", parameters } }] };
    expect(applyHubQuirks(KINDS.llamacpp.quirks, request).tools![0]!.function.parameters).toEqual({
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }], items: { not: {} } }, never: { not: {} } },
      additionalProperties: false,
    });
  });

  it("llama.cpp reads tool_choice as a string only: a named tool goes as required with only that tool; other kinds keep the name", () => {
    const tool = (name: string) => ({ type: "function" as const, function: { name, parameters: { type: "object" } } });
    const request: HubRequest = { model: "m", messages: [], tools: [tool("a"), tool("b")], tool_choice: { type: "function", function: { name: "b" } } };
    const sent = applyHubQuirks(KINDS.llamacpp.quirks, request);
    expect([sent.tool_choice, sent.tools!.map((t) => t.function.name)]).toEqual(["required", ["b"]]);
    expect(applyHubQuirks(KINDS.llamacpp.quirks, { ...request, tool_choice: "auto" }).tools).toHaveLength(2);
    const named = KIND_NAMES.filter((name) => typeof applyHubQuirks(KINDS[name].quirks, request).tool_choice === "object");
    expect(named).toEqual(KIND_NAMES.filter((name) => name !== "llamacpp"));
  });

  it("prompt_cache_key reaches OpenAI and OpenRouter only (SPEC 11)", () => {
    const request: HubRequest = { model: "m", messages: [], prompt_cache_key: "019a-session" };
    const kept = KIND_NAMES.filter((name) => applyHubQuirks(KINDS[name].quirks, request).prompt_cache_key !== undefined);
    expect(kept).toEqual(["openai", "openrouter"]);
  });
});

describe("kinds: betas and their body fields on a messages upstream", () => {
  const built = fixture<{ headers: Record<string, string>; body: Json }>("claude-code-2.1.197-betas.json");

  it("first-party Anthropic and generic get Claude Code's request as it came", () => {
    for (const name of ["anthropic", "generic"] as const) {
      const result = applyBetaPolicy(KINDS[name].quirks, built.headers["anthropic-beta"], built.body);
      expect(result).toEqual({ header: built.headers["anthropic-beta"], body: built.body, bodyChanged: false, withheld: [] });
    }
  });

  it("DeepSeek, vLLM, llama.cpp and LM Studio get no beta, and every beta's fields are left out with it; no system text is lost", () => {
    for (const name of ["deepseek", "vllm", "llamacpp", "lmstudio"] as const) {
      const before = structuredClone(built.body);
      const result = applyBetaPolicy(KINDS[name].quirks, built.headers["anthropic-beta"], built.body);
      expect(built.body).toEqual(before);
      expect(result.header).toBeUndefined();
      expect(result.withheld).toEqual(built.headers["anthropic-beta"]!.split(","));
      const body = result.body;
      expect(Object.keys(body).filter((key) => ["context_management", "diagnostics", "speed"].includes(key))).toEqual([]);
      expect(body.tools).toEqual([
        { name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } },
        { name: "ToolSearch", description: "Find deferred tools", input_schema: { type: "object", properties: { query: { type: "string" } } } },
        { name: "mcp__slack__post", description: "Post to Slack", input_schema: { type: "object", properties: { text: { type: "string" } } } },
      ]);
      expect(body.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "Find the slack tool and post hello." }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "ToolSearch", input: { query: "slack" } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "[tool references]" }] },
            { type: "text", text: "<system-reminder>\nThe user switched to plan mode.\n</system-reminder>" },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_02", name: "mcp__slack__post", input: { text: "hello" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_02", content: [{ type: "text", text: "posted" }] }] },
      ]);
    }
  });

  it("Ollama keeps inline system messages (it reads them in place) and withholds the rest", () => {
    const result = applyBetaPolicy(KINDS.ollama.quirks, built.headers["anthropic-beta"], built.body);
    expect(result.header).toBe("mid-conversation-system-2026-04-07");
    expect((result.body.messages as Json[]).filter((message) => message.role === "system")).toEqual([{ role: "system", content: "The user switched to plan mode." }]);
    expect(result.body.speed).toBeUndefined();
  });

  it("LiteLLM keeps the betas 1.81's own table knows, with their fields, and withholds the newer advisor tool, cache diagnosis and inline system messages (issue 49, finding 12)", () => {
    const result = applyBetaPolicy(KINDS.litellm.quirks, built.headers["anthropic-beta"], built.body);
    expect(result.withheld).toEqual(["claude-code-20250219", "advisor-tool-2026-03-01", "cache-diagnosis-2026-04-07", "mid-conversation-system-2026-04-07"]);
    expect((result.body.tools as Json[]).some((tool) => tool.type === "advisor_20260301")).toBe(false);
    expect(result.body.diagnostics).toBeUndefined();
    expect(result.body.speed).toBe("fast");
    expect(result.body.context_management).toEqual(built.body.context_management);
    expect((result.body.messages as Json[]).some((message) => message.role === "system")).toBe(false);
  });

  it("a recorded Claude Code request to Ollama loses only context_management and the header (its body is otherwise the same object graph)", () => {
    const result = applyBetaPolicy(KINDS.ollama.quirks, recorded.headers["anthropic-beta"], recorded.body);
    const { context_management: _dropped, ...rest } = recorded.body;
    expect(result).toEqual({ header: undefined, body: rest, bodyChanged: true, withheld: recorded.headers["anthropic-beta"]!.split(",") });
  });

  it("a request without any beta field comes back as the same object, so a passthrough keeps its bytes", () => {
    const plain: Json = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    expect(applyBetaPolicy(KINDS.vllm.quirks, undefined, plain)).toEqual({ header: undefined, body: plain, bodyChanged: false, withheld: [] });
    expect(applyBetaPolicy(KINDS.vllm.quirks, undefined, plain).body).toBe(plain);
  });
});
