import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { latestResult } from "./helpers/agent-conversation.js";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { BIN } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { LOCAL_KEY, startTestGateway } from "./helpers/gateway.js";
import { passClaudeFirstRun } from "./helpers/claude-screen.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * docs/configuration.md's "Routing recipes", each config exactly as written there (only each upstream's `url` pointed at a fake
 * upstream, and, where a real tool starts its own gateway, the Anthropic key read from nowhere), through the real
 * server with the official SDK and through `gateway run claude` with the real Claude Code.
 */

const readme = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");

/** The first block of `lang` after `heading`. */
function blockAfter(heading: string, lang: "json" | "sh" | "text"): string {
  const at = readme.indexOf(heading);
  expect(at, heading).toBeGreaterThanOrEqual(0);
  return new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(readme.slice(at))![1]!;
}

type Config = { upstreams: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/** The recipe's config with each upstream at its fake (and, with `noKeys`, no key asked of the keychain). */
function recipe(heading: string, urls: Record<string, string>, noKeys = false): Config {
  const config = JSON.parse(blockAfter(heading, "json")) as Config;
  expect(Object.keys(config.upstreams).sort()).toEqual(Object.keys(urls).sort());
  for (const [name, url] of Object.entries(urls)) Object.assign(config.upstreams[name]!, { url }, noKeys ? { key: "none" } : {});
  return config;
}

const BACKGROUND = "### Claude Code's background model on a local server";
const IMAGES = "### Images to a vision model";
const LONG = "### Long contexts to a 1M-context model";
const SUBAGENT = "### A subagent to a named route";
const CLAUDE_UA = "claude-cli/2.1.197 (external, cli)";
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const opened = closeAfterEach();
type Played = Awaited<ReturnType<typeof startPlayingUpstream>>;
const fake = async (text: string): Promise<Played> => opened(await startPlayingUpstream(() => ({ move: { kind: "text", text } })));
const posts = (upstream: Played) => upstream.received.filter((r) => r.method === "POST");

async function gatewayFor(heading: string, names: string[]) {
  const upstreams = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await fake(`from ${name}`)] as const)));
  const config = recipe(heading, Object.fromEntries(names.map((name) => [name, upstreams[name]!.url])));
  const gateway = opened(await startTestGateway(undefined, { file: config }));
  const client = (userAgent?: string) => new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY, maxRetries: 0, defaultHeaders: userAgent ? { "user-agent": userAgent } : {} });
  const ask = async (body: Anthropic.MessageCreateParamsNonStreaming, userAgent?: string) => {
    const reply = await client(userAgent).messages.create(body);
    return reply.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  };
  return { upstreams, gateway, ask };
}

describe("the routing recipes through the server, with the official SDK", () => {
  it("background: Claude Code's haiku requests go to the local server with its model; others stay on Anthropic", async () => {
    const { upstreams, gateway, ask } = await gatewayFor(BACKGROUND, ["anthropic", "local"]);
    const hi = { max_tokens: 50, messages: [{ role: "user" as const, content: "Title this" }] };
    expect(await ask({ model: "claude-haiku-4-5", ...hi }, CLAUDE_UA)).toBe("from local");
    expect(await ask({ model: "claude-sonnet-4-5", ...hi }, CLAUDE_UA)).toBe("from anthropic");
    expect(await ask({ model: "claude-haiku-4-5", ...hi })).toBe("from anthropic");
    // Ollama serves chat: translated, with the rule's model.
    expect(posts(upstreams.local!).map((r) => [r.path, r.body!.model])).toEqual([["/v1/chat/completions", "qwen3-coder:30b"]]);
    expect(gateway.records.map((r) => [r.rule, r.upstream, r.target])).toEqual([["background", "local", "qwen3-coder:30b"], [undefined, "anthropic", undefined], [undefined, "anthropic", undefined]]);
  });

  it("images: a request with an image, in a message or a tool's result, goes to the vision model", async () => {
    const { upstreams, gateway, ask } = await gatewayFor(IMAGES, ["anthropic", "vision"]);
    const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: png } };
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: [image, { type: "text", text: "What is this?" }] }] })).toBe("from vision");
    const read = [
      { role: "user" as const, content: "Look at the screenshot." },
      { role: "assistant" as const, content: [{ type: "tool_use" as const, id: "toolu_1", name: "Read", input: { file_path: "shot.png" } }] },
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_1", content: [image] }] },
    ];
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, messages: read, tools: [{ name: "Read", input_schema: { type: "object" } }] })).toBe("from vision");
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })).toBe("from anthropic");
    expect(posts(upstreams.vision!).map((r) => r.body!.model)).toEqual(["qwen2.5vl:7b", "qwen2.5vl:7b"]);
    expect(gateway.records.map((r) => r.rule)).toEqual(["images", "images", undefined]);
  });

  it("long contexts: a request of 150,000 tokens or more goes to Gemini 2.5 Pro on OpenRouter", async () => {
    const { upstreams, gateway, ask } = await gatewayFor(LONG, ["anthropic", "openrouter"]);
    const long = "The quick brown fox jumps over the lazy dog. ".repeat(17_000);
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: long }] })).toBe("from openrouter");
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: long.slice(0, 20_000) }] })).toBe("from anthropic");
    expect(posts(upstreams.openrouter!).map((r) => [r.path, r.body!.model])).toEqual([["/v1/chat/completions", "google/gemini-2.5-pro"]]);
    expect(gateway.records.map((r) => r.rule)).toEqual(["long", undefined]);
  });

  it("subagent: a prompt that starts with the tag (after Claude Code's reminders) goes to GPT-5, and the tag goes nowhere", async () => {
    const { upstreams, gateway, ask } = await gatewayFor(SUBAGENT, ["anthropic", "openai"]);
    const content = [
      { type: "text" as const, text: "<system-reminder>\nAs you answer the user's questions, you can use the following context.\n</system-reminder>" },
      { type: "text" as const, text: "<gateway-route>review</gateway-route>\nReview the last commit." },
    ];
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, system: "You are a reviewer.", messages: [{ role: "user", content }] })).toBe("from openai");
    expect(await ask({ model: "claude-sonnet-4-5", max_tokens: 50, messages: [{ role: "user", content: "Review <gateway-route>review</gateway-route>" }] })).toBe("from anthropic");
    const [sent] = posts(upstreams.openai!);
    expect(sent!.body!.model).toBe("gpt-5");
    expect(sent!.raw.toString()).not.toContain("gateway-route");
    expect(sent!.raw.toString()).toContain("Review the last commit.");
    expect(gateway.records.map((r) => r.rule)).toEqual(["review", undefined]);
  });
});

const setUp = agentRuns();

describe.skipIf(!hasTool("claude"))("the routing recipes with the real Claude Code, through gateway run claude", () => {
  it.skipIf(!hasTmux)("background: its session title goes to the local server, its turn to Anthropic", async () => {
    reportToolRun("claude", "native", "messages");
    const [anthropic, local] = [await fake("the-main-answer"), await fake("the-title")];
    const config = recipe(BACKGROUND, { anthropic: anthropic.url, local: local.url }, true);
    // The command as the README writes it: its variables, then `gateway run claude`.
    const line = blockAfter(BACKGROUND, "sh").trim();
    const [, assignments] = /^((?:[A-Z_]+=\S+ )+)gateway run claude$/.exec(line)!;
    const variables = Object.fromEntries(assignments!.trim().split(" ").map((pair) => pair.split("=", 2) as [string, string]));
    // 2.1.332 names a session only while its non-essential traffic is on (the machine has no internet: the rest fails quietly).
    const { env, work } = setUp(anthropic, "messages", { TERM: "xterm-256color", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined, ...variables }, config);
    const terminal = openTerminal("claude-background", `cd '${work}' && ${envPrefix(env)} '${process.execPath}' '${BIN}' run claude --model claude-sonnet-4-5`, { columns: 120, rows: 45 });
    try {
      await passClaudeFirstRun(terminal);
      terminal.keys("-l", "write a haiku about routers");
      terminal.keys("Enter");
      await terminal.waitFor(/the-main-answer/, 30_000);
      await expect.poll(() => posts(local).length, { timeout: 20_000 }).toBeGreaterThan(0);
    } finally {
      terminal.keys("C-c");
      terminal.keys("C-c");
      terminal.close();
    }
    // The title: no tools, the rule's model; the turn itself, with its tools, on Anthropic.
    const title = posts(local)[0]!;
    expect(title.body!.model).toBe("qwen3-coder:30b");
    expect(title.body!.tools ?? []).toEqual([]);
    expect(posts(anthropic).some((r) => r.body!.model === "claude-sonnet-4-5" && Array.isArray(r.body!.tools) && r.body!.tools.length > 0)).toBe(true);
    expect(posts(anthropic).every((r) => r.body!.model !== variables.ANTHROPIC_DEFAULT_HAIKU_MODEL)).toBe(true);
  }, 150_000);

  it("subagent: an Agent call whose prompt starts with the tag runs on the review route, without the tag", async () => {
    reportToolRun("claude", "native", "messages");
    const prompt = "<gateway-route>review</gateway-route>\nReview the last commit and say what you found.";
    // The main model calls its Agent tool once (in the foreground: 2.1.332 runs agents in the background by default),
    // then reports what the subagent said.
    const anthropic = opened(
      await startPlayingUpstream(({ tools, items }) => {
        const result = latestResult(items);
        if (result) return { move: { kind: "text", text: `Done. [agent said: ${result.text.slice(0, 2000)}]` } };
        if (!tools.includes("Agent")) return { move: { kind: "text", text: "no agent tool" } };
        return { move: { kind: "call", id: "toolu_agent_1", name: "Agent", args: { description: "Review the commit", prompt, run_in_background: false } } };
      }),
    );
    const openai = await fake("looks-good-to-the-reviewer");
    const config = recipe(SUBAGENT, { anthropic: anthropic.url, openai: openai.url }, true);
    const { run } = setUp(anthropic, "messages", {}, config);
    const result = await run(["claude", "-p", "Use a subagent to review the last commit.", "--model", "claude-sonnet-4-5", "--allowedTools", "Agent"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("looks-good-to-the-reviewer");
    const reviewed = posts(openai);
    expect(reviewed.length).toBeGreaterThan(0);
    for (const request of reviewed) {
      expect(request.body!.model).toBe("gpt-5");
      expect(request.raw.toString()).not.toContain("gateway-route");
    }
    expect(reviewed[0]!.raw.toString()).toContain("Review the last commit and say what you found.");
  }, 150_000);
});
