import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { latestResult } from "./helpers/agent-conversation.js";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { runCli, runProcess } from "./helpers/cli.js";
import { refusalOf, STRICT_KINDS } from "./helpers/strict/index.js";
import { hasTool, reportToolRun, toolVersion } from "./helpers/tools.js";

/**
 * SPEC 12, Claude Code's tool search on a translated route, with the real Claude Code pointed at the gateway by
 * `gateway env` alone (not `gateway run`) and an MCP server of the test's: Claude Code defers the MCP tool (it names
 * it in a system reminder and leaves it out of `tools`), the model loads it with ToolSearch, and the gateway expands
 * the `tool_reference` for the chat upstream. `ENABLE_TOOL_SEARCH=true` is the user's own setting here: 2.1.3xx
 * searches behind any base URL without it, 2.1.197 only with it.
 */

const setUp = agentRuns();
const MCP_SERVER = fileURLToPath(new URL("./fixtures/mcp-weather-server.mjs", import.meta.url));
const FORECAST = "mcp__weather__forecast";

describe.skipIf(!hasTool("claude"))("Claude Code's tool search through gateway env, translated to chat (SPEC 12)", () => {
  it("the chat upstream sees the deferred MCP tool only after the search result names it, and Claude Code then calls it", async () => {
    reportToolRun("claude", "translated", "chat", "tool-search");
    /** Per request with ToolSearch declared: whether the conversation had loaded the tool, and whether it was sent. */
    const seen: { loaded: boolean; declared: boolean }[] = [];
    /** Tools a request declared that Claude Code had deferred and never loaded (2.1.332's DeferredToolPlaceholder). */
    const neverLoaded = new Set<string>();
    let forecastSchema: unknown;
    const upstream = await startPlayingUpstream(({ tools, items, request }) => {
      if (!tools.includes("ToolSearch")) return { move: { kind: "text", text: "ok" } };
      for (const name of tools) if (name === "DeferredToolPlaceholder") neverLoaded.add(name);
      const loaded = items.some((item) => item.kind === "result" && item.text === `Tool loaded: ${FORECAST}`);
      seen.push({ loaded, declared: tools.includes(FORECAST) });
      if (tools.includes(FORECAST)) forecastSchema = (request.body!.tools as { function: { name: string; parameters: unknown } }[]).find((tool) => tool.function.name === FORECAST)!.function.parameters;
      const last = latestResult(items);
      if (!items.some((item) => item.kind === "call")) return { move: { kind: "call", id: "call_1", name: "ToolSearch", args: { query: `select:${FORECAST}` } } };
      if (last?.id === "call_1" && tools.includes(FORECAST)) return { move: { kind: "call", id: "call_2", name: FORECAST, args: { city: "Oslo" } } };
      if (last?.id === "call_2") return { move: { kind: "text", text: `Forecast: ${last.text}` } };
      return { move: { kind: "text", text: `stuck: ${JSON.stringify(items.slice(-2))}` } };
      // A chat upstream of no named kind: held to what every chat server refuses (docs/strict-fakes.md).
    }, { refuse: (request) => refusalOf(STRICT_KINDS.generic, request) });
    const { env, work } = setUp(upstream, "chat", { ENABLE_TOOL_SEARCH: "true" });
    expect((await runCli(["start", "--detach"], env)).code).toBe(0);
    const vars = JSON.parse((await runCli(["env", "--json"], env)).stdout) as Record<string, string>;
    expect(vars).not.toHaveProperty("ENABLE_TOOL_SEARCH");
    const mcpConfig = join(work, "mcp.json");
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { weather: { type: "stdio", command: process.execPath, args: [MCP_SERVER] } } }));

    const result = await runProcess("claude", ["-p", "What is the weather in Oslo?", "--model", "claude-sonnet-4-5", "--mcp-config", mcpConfig, "--allowedTools", FORECAST], {
      env: { ...env, ...vars },
      cwd: work,
      timeoutMs: 150_000,
    });
    const why = `${toolVersion("claude")}: ${JSON.stringify(seen)} ${result.stderr}`;
    expect(result.code, why).toBe(0);
    expect(result.stdout, why).toContain("Forecast: Sunny in Oslo");
    // Before the search result named it, no request declared the tool; after it, every one did, in full.
    expect(seen.filter((request) => !request.loaded).length, why).toBeGreaterThan(0);
    expect(seen.filter((request) => !request.loaded && request.declared), why).toEqual([]);
    expect(seen.filter((request) => request.loaded && !request.declared), why).toEqual([]);
    expect([...neverLoaded], why).toEqual([]);
    expect(forecastSchema, why).toMatchObject({ type: "object", properties: { city: { type: "string" } } });
  }, 200_000);
});
