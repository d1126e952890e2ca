import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { claimPath } from "../src/formats/index.js";
import { ClientRequest } from "../src/request/client-request.js";
import { formatRequestLine, requestNote } from "../src/request-log/request-line.js";
import { summarize } from "../src/stats/summarize.js";
import { createModelAliases } from "../src/routing/model-aliases.js";
import { createRouter } from "../src/routing/router.js";
import { loadConfig } from "../src/config/index.js";
import { testSeal } from "./helpers/translate.js";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir, type TestGateway } from "./helpers/gateway.js";
import { chatHeaders, messagesHeaders, rawRequest } from "./helpers/http.js";
import { refusalOf, STRICT_KINDS } from "./helpers/strict/index.js";

/**
 * SPEC 11, Routes, through the real server: rules tried in order with the official SDKs as clients, each condition
 * holding and failing, the model a rule sends, the route tag removed before any request leaves (passthrough and
 * translated), and each record naming its rule.
 */

const opened = closeAfterEach();
type Played = Awaited<ReturnType<typeof startPlayingUpstream>>;

/** An upstream that answers any format with `from <name>`; a chat call is held to the generic strict fake's rules. */
async function named(name: string): Promise<Played> {
  return opened(await startPlayingUpstream(() => ({ move: { kind: "text", text: `from ${name}` } }), { refuse: (request) => refusalOf(STRICT_KINDS.generic, request) }));
}

const posts = (upstream: Played) => upstream.received.filter((r) => r.method === "POST");
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

async function gatewayWith(file: Record<string, unknown>): Promise<TestGateway> {
  return opened(await startTestGateway(undefined, { file }));
}

describe("rules, first that holds", () => {
  it("sends each request by the first rule whose every condition holds, with the rule's model, and the rest by model as before", async () => {
    const [main, local, vision, long] = [await named("main"), await named("local"), await named("vision"), await named("long")];
    const gateway = await gatewayWith({
      upstreams: {
        main: { url: main.url, key: "none" },
        local: { url: local.url, key: "none", formats: ["chat"] },
        vision: { url: vision.url, key: "none", formats: ["chat"], models: ["qwen2.5-vl*"] },
        long: { url: long.url, key: "none", formats: ["messages"] },
      },
      models: { "claude-fast": "claude-haiku-4-5" },
      routes: [
        { name: "background", when: { model: "claude-haiku-*", format: "messages" }, to: "local", model: "qwen3-coder:30b" },
        { name: "images", when: { image: true }, to: "vision", model: "qwen2.5-vl:7b" },
        { name: "long", when: { minInputTokens: 2000 }, to: "long", model: "claude-sonnet-4-5-1m" },
      ],
    });
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    const ask = (model: string, content: Anthropic.MessageParam["content"]) => anthropic.messages.create({ model, max_tokens: 64, messages: [{ role: "user", content }] });

    // The alias applies first: `claude-fast` is `claude-haiku-4-5` when the rules look at it.
    const background = await ask("claude-fast", "Write a title for this chat.");
    expect(background.content).toEqual([{ type: "text", text: "from local" }]);
    expect(posts(local)[0]!.body).toMatchObject({ model: "qwen3-coder:30b" });
    const image = await ask("claude-sonnet-4-5", [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }, { type: "text", text: "What is this?" }]);
    expect(image.content).toEqual([{ type: "text", text: "from vision" }]);
    expect(posts(vision)[0]!.body).toMatchObject({ model: "qwen2.5-vl:7b" });
    const longOne = await ask("claude-sonnet-4-5", "word ".repeat(12_000));
    expect(longOne.content).toEqual([{ type: "text", text: "from long" }]);
    expect(posts(long)[0]!.body).toMatchObject({ model: "claude-sonnet-4-5-1m" });
    const plain = await ask("claude-sonnet-4-5", "hi");
    expect(plain.content).toEqual([{ type: "text", text: "from main" }]);
    expect(posts(main)[0]!.body).toMatchObject({ model: "claude-sonnet-4-5" });
    // A model another upstream lists still goes there when no rule holds (SPEC 10).
    const listed = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 }).chat.completions.create({ model: "qwen2.5-vl:3b", messages: [{ role: "user", content: "hi" }] });
    expect(listed.choices[0]!.message.content).toBe("from vision");

    expect(gateway.records.map((r) => [r.model, r.target, r.rule, r.upstream, r.translated])).toEqual([
      ["claude-fast", "qwen3-coder:30b", "background", "local", "messages -> chat"],
      ["claude-sonnet-4-5", "qwen2.5-vl:7b", "images", "vision", "messages -> chat"],
      ["claude-sonnet-4-5", "claude-sonnet-4-5-1m", "long", "long", undefined],
      ["claude-sonnet-4-5", undefined, undefined, "main", undefined],
      ["qwen2.5-vl:3b", undefined, undefined, "vision", undefined],
    ]);
    // The terminal line and `gateway logs` name the rule; `stats` counts per rule.
    expect(formatRequestLine(gateway.records[0]!)).toMatch(/^POST \/v1\/messages claude-fast -> qwen3-coder:30b 200 .* via local by rule background \(messages -> chat\)$/);
    expect(requestNote(gateway.records[0]!)).toBe("rule background; messages -> chat");
    expect(summarize(gateway.records).rules.map((g) => [g.name, g.requests])).toEqual([["-", 2], ["background", 1], ["images", 1], ["long", 1]]);
  });

  it("asks each condition: format, client by name or user-agent pattern, thinking true and false, a declared tool by pattern", async () => {
    const [main, a, b] = [await named("main"), await named("a"), await named("b")];
    const gateway = await gatewayWith({
      upstreams: { main: { url: main.url, key: "none" }, a: { url: a.url, key: "none" }, b: { url: b.url, key: "none" } },
      routes: [
        { name: "search", when: { tools: "web_search*" }, to: "a" },
        { name: "codex-thinking", when: { client: "codex", thinking: true }, to: "a" },
        { name: "codex-quick", when: { client: "codex", thinking: false }, to: "b" },
        { name: "scripts", when: { client: "OpenAI/JS *", format: "chat" }, to: "b" },
      ],
    });
    const codex = { "user-agent": "codex_exec/0.169.0 (Debian 12; x86_64) xterm" };
    const responses = (body: Record<string, unknown>, headers: Record<string, string> = codex) =>
      rawRequest(gateway.url, { method: "POST", path: "/v1/responses", headers: { ...chatHeaders(LOCAL_KEY), ...headers }, body: JSON.stringify({ model: "gpt-5.1-codex", input: "hi", ...body }) });
    expect((await responses({ reasoning: { effort: "high" } })).headers["x-gateway-upstream"]).toBe("a");
    expect((await responses({ reasoning: { effort: "minimal" } })).headers["x-gateway-upstream"]).toBe("b");
    expect((await responses({})).headers["x-gateway-upstream"]).toBe("b");
    expect((await responses({ tools: [{ type: "web_search_preview" }] }, { "user-agent": "curl/8.5.0" })).headers["x-gateway-upstream"]).toBe("a");
    expect((await responses({}, { "user-agent": "curl/8.5.0" })).headers["x-gateway-upstream"]).toBe("main");
    // The OpenAI SDK's own user agent (`OpenAI/JS 6.x`) on chat; on another format the rule does not hold.
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    expect((await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] })).choices[0]!.message.content).toBe("from b");
    expect((await openai.responses.create({ model: "m", input: "hi" })).output_text).toBe("from main");
    expect(gateway.records.map((r) => r.rule)).toEqual(["codex-thinking", "codex-quick", "codex-quick", "search", undefined, "scripts", undefined]);
  });

  it("a body that is not JSON satisfies no body condition, while format and client still apply", async () => {
    const [main, a, b] = [await named("main"), await named("a"), await named("b")];
    const gateway = await gatewayWith({
      upstreams: { main: { url: main.url, key: "none" }, a: { url: a.url, key: "none" }, b: { url: b.url, key: "none" } },
      routes: [
        { name: "quiet", when: { thinking: false }, to: "a" },
        { name: "no-image", when: { image: false, format: "responses" }, to: "a" },
        { name: "responses", when: { format: "responses", client: "curl*" }, to: "b" },
      ],
    });
    const res = await rawRequest(gateway.url, { method: "POST", path: "/v1/responses", headers: { ...chatHeaders(LOCAL_KEY), "user-agent": "curl/8.5.0" }, body: "{not json" });
    expect(res.headers["x-gateway-upstream"]).toBe("b");
    expect(posts(b)[0]!.raw.toString()).toBe("{not json");
    expect(gateway.records.at(-1)!.rule).toBe("responses");
  });

  it("routes by the input-token estimate, whether its bounds decide or the tokenizer counts", async () => {
    const [main, long] = [await named("main"), await named("long")];
    const gateway = await gatewayWith({
      upstreams: { main: { url: main.url, key: "none" }, long: { url: long.url, key: "none" } },
      routes: [{ name: "long", when: { minInputTokens: 1000 }, to: "long" }],
    });
    const chat = (text: string) =>
      rawRequest(gateway.url, { method: "POST", path: "/v1/chat/completions", headers: chatHeaders(LOCAL_KEY), body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }) });
    // 5,000 characters of distinct words: at least 1,250 tokens by the floor, decided without the tokenizer.
    expect((await chat("alpha ".repeat(834))).headers["x-gateway-upstream"]).toBe("long");
    // 2,000 characters: a floor of 500 and a ceiling of 2,000 and more, so the tokenizer decides (about 400 tokens).
    expect((await chat("alpha ".repeat(333))).headers["x-gateway-upstream"]).toBe("main");
    // 3,000 characters of one letter: the tokenizer counts far fewer tokens than bytes, so below 1,000.
    expect((await chat("a".repeat(3000))).headers["x-gateway-upstream"]).toBe("main");
    expect(gateway.records.map((r) => r.rule)).toEqual(["long", undefined, undefined]);
  });
});

describe("the route tag", () => {
  async function tagged() {
    const [main, review] = [await named("main"), await named("review")];
    const gateway = await gatewayWith({
      upstreams: { main: { url: main.url, key: "none" }, review: { url: review.url, key: "none", formats: ["chat"] } },
      routes: [{ name: "reviewer", when: { tag: "review" }, to: "review", model: "qwen3-coder:30b" }],
    });
    return { main, review, gateway };
  }

  it("routes by the tag opening a system block or a text part of the first user message, and removes it before the request leaves (translated)", async () => {
    const { review, gateway } = await tagged();
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0 });
    // Claude Code's subagent: its own system blocks first, then `<system-reminder>` parts before the prompt.
    const reply = await anthropic.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      system: [{ type: "text", text: "x-anthropic-billing-header: cc_version=2.1.197" }, { type: "text", text: "You are an agent for Claude Code." }],
      messages: [{ role: "user", content: [{ type: "text", text: "<system-reminder>Today is Monday.</system-reminder>" }, { type: "text", text: "\n <gateway-route>review</gateway-route>\nReview the diff." }] }],
    });
    expect(reply.content).toEqual([{ type: "text", text: "from review" }]);
    const sent = posts(review)[0]!;
    expect(sent.raw.toString()).not.toContain("gateway-route");
    expect(sent.body!.messages).toEqual([
      { role: "system", content: "You are an agent for Claude Code." },
      { role: "user", content: "<system-reminder>Today is Monday.</system-reminder>\n\nReview the diff." },
    ]);
    expect(gateway.records[0]).toMatchObject({ rule: "reviewer", upstream: "review", model: "claude-sonnet-4-5", target: "qwen3-coder:30b" });
  });

  it("removes it on a passthrough route too, whatever its name, rebuilding only a body that had one; the same text elsewhere stays", async () => {
    const { main, gateway } = await tagged();
    const send = (body: Record<string, unknown>) => rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify(body) });
    const untaggedBytes = '{"model":"claude-sonnet-4-5",  "max_tokens":64,"messages":[{"role":"user","content":"say <gateway-route>review</gateway-route>"}]}';
    await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: untaggedBytes });
    expect(posts(main)[0]!.raw.toString()).toBe(untaggedBytes);
    // An unknown name routes as if there were no tag, and is removed all the same; a tag later in the text stays.
    await send({ model: "claude-sonnet-4-5", max_tokens: 64, system: "<gateway-route>nobody</gateway-route> Be brief. <gateway-route>review</gateway-route>", messages: [{ role: "user", content: "hi" }] });
    expect(posts(main)[1]!.body).toEqual({ model: "claude-sonnet-4-5", max_tokens: 64, system: "Be brief. <gateway-route>review</gateway-route>", messages: [{ role: "user", content: "hi" }] });
    // Only the first user message counts: a tag opening a later one is left alone.
    const later = [{ role: "user", content: "first" }, { role: "assistant", content: "ok" }, { role: "user", content: "<gateway-route>review</gateway-route> later" }];
    await send({ model: "claude-sonnet-4-5", max_tokens: 64, messages: later });
    expect(posts(main)[2]!.body!.messages).toEqual(later);
    // A text part that held only the tag goes with it (Anthropic refuses an empty text block).
    await send({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: [{ type: "text", text: "<gateway-route>x</gateway-route>" }, { type: "text", text: "hi" }] }] });
    expect(posts(main)[3]!.body!.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(gateway.records.map((r) => [r.rule, r.upstream])).toEqual([[undefined, "main"], [undefined, "main"], [undefined, "main"], [undefined, "main"]]);
  });

  it("is found and removed in every format: chat's system message, Responses' instructions and input, Gemini's systemInstruction and first user content", async () => {
    const { main, review, gateway } = await tagged();
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: "m", messages: [{ role: "system", content: "<gateway-route>review</gateway-route>Be terse." }, { role: "user", content: "hi" }] });
    expect(posts(review)[0]!.body!.messages).toEqual([{ role: "system", content: "Be terse." }, { role: "user", content: "hi" }]);
    await openai.responses.create({ model: "m", instructions: "Be terse.", input: [{ role: "user", content: [{ type: "input_text", text: "<gateway-route>review</gateway-route> hi" }] }] });
    expect(posts(review)[1]!.body!.messages).toEqual([{ role: "system", content: "Be terse." }, { role: "user", content: "hi" }]);
    const genai = new GoogleGenAI({ apiKey: LOCAL_KEY, httpOptions: { baseUrl: `${gateway.url}/gemini` } });
    await genai.models.generateContent({ model: "gemini-2.5-pro", contents: "<gateway-route>review</gateway-route>hi", config: { systemInstruction: "Be terse." } });
    expect(posts(review)[2]!.body!.messages).toEqual([{ role: "system", content: "Be terse." }, { role: "user", content: "hi" }]);
    // Passthrough (the main upstream serves Gemini): the tag in systemInstruction goes, and the path keeps its model.
    await genai.models.generateContent({ model: "gemini-2.5-pro", contents: "hi", config: { systemInstruction: "<gateway-route>other</gateway-route>Be terse." } });
    expect(posts(main)[0]!.path).toBe("/gemini/v1beta/models/gemini-2.5-pro:generateContent");
    expect(posts(main)[0]!.body).toMatchObject({ systemInstruction: { parts: [{ text: "Be terse." }] } });
    expect(posts(main)[0]!.raw.toString()).not.toContain("gateway-route");
    expect(gateway.records.map((r) => r.rule)).toEqual(["reviewer", "reviewer", "reviewer", undefined]);
  });

  it("is found in Gemini's snake_case spellings and in a :countTokens body's generateContentRequest, and removed there", async () => {
    const { main, review, gateway } = await tagged();
    const gemini = (method: string, body: Record<string, unknown>) =>
      rawRequest(gateway.url, { method: "POST", path: `/gemini/v1beta/models/gemini-2.5-pro:${method}`, headers: { "content-type": "application/json", "x-goog-api-key": LOCAL_KEY }, body: JSON.stringify(body) });
    // Translated (the rule's upstream serves chat): system_instruction as Google's own REST examples write it.
    expect((await gemini("generateContent", { system_instruction: { parts: [{ text: "<gateway-route>review</gateway-route>Be terse." }] }, contents: [{ role: "user", parts: [{ text: "hi" }] }] })).status).toBe(200);
    expect(posts(review)[0]!.body!.messages).toEqual([{ role: "system", content: "Be terse." }, { role: "user", content: "hi" }]);
    // Passthrough (an unknown name): the snake_case field keeps its spelling, the tag goes.
    await gemini("generateContent", { system_instruction: { parts: [{ text: "<gateway-route>other</gateway-route>Be terse." }] }, contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    expect(posts(main)[0]!.body).toEqual({ system_instruction: { parts: [{ text: "Be terse." }] }, contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    // A count in the form Gemini CLI and the SDKs send: the generate request inside is searched, and the tag removed.
    const count = { generateContentRequest: { model: "models/gemini-2.5-pro", contents: [{ role: "user", parts: [{ text: "<gateway-route>other</gateway-route>count me" }] }] } };
    await gemini("countTokens", count);
    const counted = posts(main).find((r) => r.path.endsWith(":countTokens"))!;
    expect(counted.body).toEqual({ generateContentRequest: { model: "models/gemini-2.5-pro", contents: [{ role: "user", parts: [{ text: "count me" }] }] } });
    expect(gateway.records.map((r) => r.rule)).toEqual(["reviewer", undefined, undefined]);
  });

  it("is found when JSON \\u escapes spell it, and a text block that held only the tag leaves no empty block", async () => {
    const { main, gateway } = await tagged();
    // `\u0067ateway-route`: the bytes never hold the tag's name as it is written.
    const escaped = '{"model":"claude-sonnet-4-5","max_tokens":64,"system":"\\u003c\\u0067ateway-route>nobody</\\u0067ateway-route> Be brief.","messages":[{"role":"user","content":"hi"}]}';
    expect(JSON.parse(escaped).system).toBe("<gateway-route>nobody</gateway-route> Be brief.");
    await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: escaped });
    expect(posts(main)[0]!.body).toEqual({ model: "claude-sonnet-4-5", max_tokens: 64, system: "Be brief.", messages: [{ role: "user", content: "hi" }] });
    expect(posts(main)[0]!.raw.toString()).not.toMatch(/ateway-route/);
    // The block that was all tag goes, though it was the only one.
    const lone = { model: "claude-sonnet-4-5", max_tokens: 64, system: [{ type: "text", text: "<gateway-route>nobody</gateway-route>" }], messages: [{ role: "user", content: "hi" }] };
    await rawRequest(gateway.url, { method: "POST", path: "/v1/messages", headers: messagesHeaders(LOCAL_KEY), body: JSON.stringify(lone) });
    expect(posts(main)[1]!.body).toEqual({ ...lone, system: [] });
  });

  it("counts every system or developer message before the first user message as the system prompt: Codex's developer items, a second chat system message", async () => {
    const { main, review, gateway } = await tagged();
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, maxRetries: 0 });
    await openai.responses.create({
      model: "m",
      instructions: "Be terse.",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions instructions>none</permissions instructions>" }] },
        { type: "message", role: "developer", content: [{ type: "input_text", text: "<gateway-route>review</gateway-route>Review only." }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
      ],
    });
    expect(posts(review)[0]!.body!.messages).toEqual([{ role: "system", content: "Be terse.\n\n<permissions instructions>none</permissions instructions>\n\nReview only." }, { role: "user", content: "hi" }]);
    await openai.chat.completions.create({ model: "m", messages: [{ role: "system", content: "a" }, { role: "system", content: "<gateway-route>review</gateway-route>b" }, { role: "user", content: "hi" }] });
    expect(posts(review)[1]!.body!.messages).toEqual([{ role: "system", content: "a" }, { role: "system", content: "b" }, { role: "user", content: "hi" }]);
    // After the first user message a system message is the conversation's, not its opening: left alone.
    const later = [{ role: "user", content: "hi" }, { role: "system", content: "<gateway-route>review</gateway-route>later" }] as const;
    await openai.chat.completions.create({ model: "m", messages: [...later] });
    expect(posts(main)[0]!.body!.messages).toEqual(later);
    for (const request of posts(review)) expect(request.raw.toString()).not.toContain("gateway-route");
    expect(gateway.records.map((r) => r.rule)).toEqual(["reviewer", "reviewer", undefined]);
  });
});

describe("what routing costs", () => {
  /** A request whose every on-demand fact throws: asking one is a failure. */
  class Untouchable extends ClientRequest {
    constructor() {
      const body = { model: "claude-haiku-4-5", max_tokens: 9, messages: [{ role: "user", content: "hi" }] };
      super(claimPath("POST", "/v1/messages", {}, { messages: "anthropic", gemini: "gemini" })!, "", {}, Buffer.from(JSON.stringify(body)), body, body.model, false);
    }
  }
  for (const fact of ["client", "hasImage", "tools", "asksThinking", "routeTag", "inputTokensAtLeast", "inputTokens"] as const) {
    Object.defineProperty(Untouchable.prototype, fact, { value: () => { throw new Error(`asked ${fact}`); } });
  }
  const routerFor = (file: Record<string, unknown>) => {
    const config = loadConfig({ env: { GATEWAY_CONFIG_DIR: tempConfigDir(file) } });
    const all = config.upstreams.map((upstreamConfig) => ({ name: upstreamConfig.name, config: upstreamConfig }));
    return createRouter({ upstreams: { all, default: all[0]!, named: (name) => all.find((u) => u.name === name) }, aliases: createModelAliases(config.models), routes: config.routes, seal: testSeal });
  };

  it("a config without routes asks nothing of a request, and a rule asks only what it names, cheapest first", () => {
    expect(routerFor({ upstream: "echo", upstreams: { a: { url: "echo" } } }).route(new Untouchable())).toMatchObject({ rule: undefined, model: "claude-haiku-4-5" });
    // The model fails first, so the rule never asks the (costly) image or token questions.
    const router = routerFor({ upstream: "echo", upstreams: { a: { url: "echo" } }, routes: [{ when: { minInputTokens: 10, image: true, model: "gpt-*" }, to: "a" }, { name: "by-model", when: { model: "claude-*" }, to: "a" }] });
    expect(router.route(new Untouchable())).toMatchObject({ rule: "by-model", candidates: [{ name: "a" }] });
  });
});
