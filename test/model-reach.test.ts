import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { claudeOnAnthropicOnly, extraModelIds, reachOf } from "../src/routing/model-reach.js";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { hasTool, reportToolRun, toolVersion } from "./helpers/tools.js";

/**
 * "Where can a model id go" (SPEC 11): the one answer behind Claude Code's model picker (the messages-shaped model list
 * holds each exact claude* `when.model`), `gateway routes` and `gateway run claude`'s ENABLE_TOOL_SEARCH.
 */

const load = (file: Record<string, unknown>) => loadConfig({ env: { GATEWAY_CONFIG_DIR: tempConfigDir(file) } });
const upstreams = {
  claude: { kind: "anthropic", key: "none" },
  local: { kind: "ollama", models: ["qwen*"] },
  backup: { kind: "anthropic", key: "none", url: "http://127.0.0.1:9" },
};

describe("where a model can go", () => {
  it("follows aliases, every rule that may hold (stopping at one that takes all), models lists, the default and one level of fallback", () => {
    const config = load({
      upstream: "claude",
      upstreams: { ...upstreams, claude: { ...upstreams.claude, fallback: ["backup"] } },
      models: { "claude-haiku*": "qwen3-coder" },
      routes: [
        { name: "images", when: { image: true }, to: "local" },
        { name: "opus", when: { model: "claude-opus-4-1" }, to: "backup" },
        { name: "all-sonnet", when: { model: "claude-sonnet-*" }, to: "claude" },
        { name: "never", when: { model: "claude-sonnet-4-5", thinking: true }, to: "local" },
      ],
    });
    expect(reachOf(config, "claude-sonnet-4-5")).toEqual([
      { upstream: "local", how: "rule images" },
      { upstream: "claude", how: "rule all-sonnet" },
      { upstream: "backup", how: "fallback of claude" },
    ]);
    // The alias sends haiku to qwen3-coder, which the local upstream lists.
    expect(reachOf(config, "claude-haiku-4-5")).toEqual([{ upstream: "local", how: "rule images" }]);
    expect(reachOf(config, "gpt-5")).toEqual([{ upstream: "local", how: "rule images" }, { upstream: "claude", how: "the default upstream" }, { upstream: "backup", how: "fallback of claude" }]);
    // A pattern: every rule whose model shares an id with it, and the default since no models list covers claude*.
    expect(reachOf(config, "claude*").map((d) => d.upstream)).toEqual(["local", "backup", "claude"]);
    expect(claudeOnAnthropicOnly(config)).toBe(false);
  });

  it("tool search: on only when every upstream a claude* model can reach is of kind anthropic", () => {
    const only = (file: Record<string, unknown>) => claudeOnAnthropicOnly(load({ upstream: "claude", upstreams, ...file }));
    expect(only({})).toBe(true);
    expect(only({ routes: [{ when: { model: "gpt-*" }, to: "local" }] })).toBe(true);
    expect(only({ routes: [{ when: { client: "claude-code", thinking: false }, to: "local" }] })).toBe(false);
    expect(only({ routes: [{ when: { tag: "review" }, to: "local" }] })).toBe(false);
    expect(only({ models: { "claude-haiku-4-5": "qwen3" } })).toBe(false);
    expect(only({ models: { "claude-haiku-4-5": "claude-sonnet-4-5" } })).toBe(true);
    expect(only({ upstreams: { ...upstreams, claude: { ...upstreams.claude, fallback: ["local"] } } })).toBe(false);
    expect(only({ upstream: "local" })).toBe(false);
    // A models list that takes every claude* id keeps the default out of it.
    expect(only({ upstream: "local", upstreams: { ...upstreams, claude: { ...upstreams.claude, models: ["claude*"] } } })).toBe(true);
    expect(only({ upstream: "local", upstreams: { ...upstreams, claude: { ...upstreams.claude, models: ["claude-sonnet*"] } } })).toBe(false);
  });

  it("a team catalog's ids go to their team upstream, as the router routes them: after listed ids, before patterns (SPEC 12)", () => {
    const config = load({ upstream: "claude", upstreams: { ...upstreams, team: { kind: "litellm", url: "http://127.0.0.1:9", team: true } } });
    const catalogued = [["claude-sonnet-4-5", "team"], ["qwen3-coder", "team"]] as const;
    expect(reachOf(config, "claude-sonnet-4-5", catalogued)).toEqual([{ upstream: "team", how: "catalog of team" }]);
    // An exact catalog id wins over local's qwen* pattern, as in the router's table.
    expect(reachOf(config, "qwen3-coder", catalogued)).toEqual([{ upstream: "team", how: "catalog of team" }]);
    expect(reachOf(config, "qwen3", catalogued)).toEqual([{ upstream: "local", how: "models of local" }]);
    expect(reachOf(config, "claude*", catalogued)).toEqual([
      { upstream: "team", how: "catalog of team" },
      { upstream: "claude", how: "the default upstream" },
    ]);
    // A team that serves a claude* id keeps Claude Code's tool search off: it is not first-party Anthropic.
    expect(claudeOnAnthropicOnly(config)).toBe(true);
    expect(claudeOnAnthropicOnly(config, catalogued)).toBe(false);
  });

  it("the picker's extra ids: exact aliases in every shape, exact claude* rule models in the messages shape only", () => {
    const config = load({
      upstream: "claude",
      upstreams,
      models: { "claude-fast": "qwen3", "gpt-*": "x" },
      routes: [{ when: { model: "claude-local" }, to: "local" }, { when: { model: "claude-fast" }, to: "local" }, { when: { model: "claude-*" }, to: "local" }, { when: { model: "qwen3" }, to: "local" }],
    });
    expect(extraModelIds(config, "messages")).toEqual(["claude-fast", "claude-local"]);
    expect(extraModelIds(config, "chat")).toEqual(["claude-fast"]);
  });
});

const opened = closeAfterEach();

describe("the model list a picker reads", () => {
  it("holds each exact claude* when.model of a rule in the messages shape, and only there", async () => {
    const upstream = opened(await startPlayingUpstream(() => ({ move: { kind: "text", text: "ok" } })));
    const gateway = opened(
      await startTestGateway(undefined, {
        file: {
          upstream: "main",
          upstreams: { main: { url: upstream.url, key: "none" } },
          models: { "claude-alias": "agent-model" },
          routes: [{ when: { model: "claude-background" }, to: "main", model: "agent-model" }, { when: { model: "claude-x*" }, to: "main" }, { when: { model: "qwen3" }, to: "main" }],
        },
      }),
    );
    const messages = await new Anthropic({ baseURL: gateway.url, apiKey: LOCAL_KEY }).models.list();
    expect(messages.data.map((m) => m.id)).toEqual(["agent-model", "claude-alias", "claude-background"]);
    const chat = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY }).models.list();
    expect(chat.data.map((m) => m.id)).toEqual(["agent-model", "claude-alias"]);
  });

  it("gateway models names each rule's id in the messages shape, with the rule and where it goes", async () => {
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ upstream: "echo", models: { "claude-alias": "echo-1" }, routes: [{ when: { model: "claude-background" }, to: "default", model: "echo-mini" }] }) });
    const messages = await runCli(["models", "--api", "messages"], env);
    expect(messages.stdout).toMatch(/^claude-alias +alias -> echo-1$/m);
    expect(messages.stdout).toMatch(/^claude-background +rule route-1 -> default$/m);
    const chat = await runCli(["models"], env);
    expect(chat.stdout).toMatch(/^claude-alias +alias -> echo-1$/m);
    expect(chat.stdout).not.toContain("claude-background");
  });
});

const setUp = agentRuns();

describe("gateway run claude's ENABLE_TOOL_SEARCH, as the launched command sees it (SPEC 11)", () => {
  /** A stand-in named `claude` (the profile is chosen by the command's file name) that prints the variable it got. */
  const standIn = (dir: string) => {
    const path = join(dir, "claude");
    writeFileSync(path, '#!/bin/sh\necho "ENABLE_TOOL_SEARCH=${ENABLE_TOOL_SEARCH-unset}"\n', { mode: 0o755 });
    return path;
  };
  const seen = async (kind: "anthropic" | "generic", own: string | undefined) => {
    const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "done" } }));
    const fields = kind === "anthropic" ? { kind, url: `${upstream.url}/anthropic` } : { url: upstream.url, formats: ["messages"] };
    const { run, work } = setUp(upstream, "messages", { ENABLE_TOOL_SEARCH: own }, { upstreams: { local: { ...fields, key: "none" } } });
    const result = await run([standIn(work)]);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout.trim();
  };

  it("true when every claude* model goes to an anthropic upstream", async () => {
    expect(await seen("anthropic", undefined)).toBe("ENABLE_TOOL_SEARCH=true");
  }, 60_000);
  it("false when a claude* model can reach another kind", async () => {
    expect(await seen("generic", undefined)).toBe("ENABLE_TOOL_SEARCH=false");
  }, 60_000);
  it("a value the user set is kept either way", async () => {
    expect(await seen("generic", "true")).toBe("ENABLE_TOOL_SEARCH=true");
  }, 60_000);
  it("a user's false is kept where the gateway would say true", async () => {
    expect(await seen("anthropic", "false")).toBe("ENABLE_TOOL_SEARCH=false");
  }, 60_000);
});

describe.skipIf(!hasTool("claude"))("gateway run claude and tool search", () => {
  /** The tools of Claude Code's main request (the one with Bash), each with whether it is deferred. */
  async function toolsSent(kind: "anthropic" | "generic"): Promise<{ name: string; deferred: boolean }[]> {
    const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "done" } }));
    // A first-party upstream has no path segment: its URL is the fake upstream's messages root.
    const fields = kind === "anthropic" ? { kind, url: `${upstream.url}/anthropic` } : { url: upstream.url, formats: ["messages"] };
    const { run } = setUp(upstream, "messages", { ENABLE_TOOL_SEARCH: undefined }, { upstreams: { local: { ...fields, key: "none" } } });
    const result = await run(["claude", "-p", "hi", "--model", "claude-sonnet-4-5"]);
    expect(result.code, result.stderr).toBe(0);
    const main = upstream.received.find((r) => r.method === "POST" && (r.body?.tools as { name: string }[] | undefined)?.some((tool) => tool.name === "Bash"));
    expect(main, JSON.stringify(upstream.received.map((r) => r.path))).toBeDefined();
    return (main!.body!.tools as { name: string; defer_loading?: boolean }[]).map((tool) => ({ name: tool.name, deferred: tool.defer_loading === true }));
  }

  // Claude Code searches its tools only when told to behind a base URL of its own: it then sends a ToolSearch tool and
  // holds back its deferrable tools (NotebookEdit among them: 2.1.197 leaves them out of `tools` until searched for,
  // and a later version may send them with `defer_loading`). Without it, every tool goes in full and none is deferred.
  const eager = (tools: { name: string; deferred: boolean }[]) => tools.filter((tool) => !tool.deferred).map((tool) => tool.name);

  it("sets ENABLE_TOOL_SEARCH=true when every claude* model goes to an anthropic upstream: Claude Code then searches its tools", async () => {
    reportToolRun("claude", "native", "messages");
    const tools = await toolsSent("anthropic");
    const why = `${toolVersion("claude")}: ${JSON.stringify(tools)}`;
    expect(eager(tools), why).toContain("ToolSearch");
    expect(eager(tools), why).not.toContain("NotebookEdit");
  }, 150_000);

  it("sets ENABLE_TOOL_SEARCH=false when a claude* model can reach another kind: Claude Code then sends every tool in full", async () => {
    reportToolRun("claude", "native", "messages");
    const tools = await toolsSent("generic");
    const why = `${toolVersion("claude")}: ${JSON.stringify(tools)}`;
    // 2.1.332 searches behind any base URL unless ENABLE_TOOL_SEARCH says no (its check for a first-party URL is gone).
    expect(eager(tools), why).toContain("NotebookEdit");
    expect(eager(tools), why).not.toContain("ToolSearch");
    expect(tools.filter((tool) => tool.deferred), why).toEqual([]);
  }, 150_000);
});
