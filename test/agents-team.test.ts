import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { BIN } from "./helpers/cli.js";
import { openModelPicker, passClaudeFirstRun, quitClaude, trustWorkFolder } from "./helpers/claude-screen.js";
import { LOCAL_KEY } from "./helpers/gateway.js";
import { rawRequest } from "./helpers/http.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { LITELLM_KEY_INFO, startStrictLiteLLM } from "./helpers/strict/litellm.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * SPEC 12 with the real tools (issue 51: "gateway run claude and gateway run codex see them in their model pickers"):
 * a team LiteLLM (the strict fake) behind the gateway, its catalog read at start. Codex asks the gateway's model
 * catalog (`GET /v1/models?client_version=`) and gets the team's models with the catalog's windows, and a prompt with
 * `-m <team model>` reaches the team gateway with the attribution headers. Claude Code's `/model` picker offers the
 * team's `claude*` models from the gateway's messages-shaped list.
 */

const setUp = agentRuns();
type Playing = Awaited<ReturnType<typeof startPlayingUpstream>>;

/**
 * A team LiteLLM beside the default upstream (the built-in echo): only its catalog sends its models to it, and only
 * the catalog gives their windows.
 */
async function teamSetUp(format: "chat" | "messages", extraEnv: Record<string, string | undefined> = {}) {
  const team = await startStrictLiteLLM({ masterKey: "sk-team-master-never-sent", virtualKeys: { [GOOD_LOGIN_KEY]: LITELLM_KEY_INFO } });
  const config = { upstream: "local", upstreams: { local: { url: "echo" }, team: { kind: "litellm", url: team.url, formats: [format], team: true, key: "env:TEAM_KEY" } } };
  // agentRuns closes what it is given after the test: the strict fake has the same close().
  const run = setUp(team as unknown as Playing, format, { TEAM_KEY: GOOD_LOGIN_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, ...extraEnv }, config);
  return { team, ...run };
}

describe.skipIf(!hasTool("codex"))("Codex through gateway run codex, with a team gateway behind", () => {
  it("its model catalog holds the team's models with the catalog's windows, and -m <team model> reaches the team with attribution", async () => {
    reportToolRun("codex", "translated", "chat");
    const { team, run, log, env } = await teamSetUp("chat");
    const result = await run(["codex", "-m", "team-small", "exec", "--skip-git-repo-check", "Say hello."], 180_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    expect(result.stdout).toContain("hello from the team");
    // Codex asked the gateway's catalog, and knew team-small's metadata from it.
    expect(log()).toMatch(/GET \/v1\/models - 200/);
    expect(result.stderr).not.toMatch(/metadata for .* not found|failed to decode models/i);
    // What the gateway answers that request: the team's models, with the catalog's windows.
    const catalog = await rawRequest(`http://127.0.0.1:${env.GATEWAY_PORT}`, { path: "/v1/models?client_version=0.171.0", headers: { authorization: `Bearer ${LOCAL_KEY}` } });
    expect(catalog.status, catalog.body).toBe(200);
    const models = (JSON.parse(catalog.body) as { models: { slug: string; context_window?: number }[] }).models;
    expect(models.filter((model) => ["claude-sonnet-4-5", "gpt-4o-mini", "team-small"].includes(model.slug)).map((model) => [model.slug, model.context_window])).toEqual([
      ["claude-sonnet-4-5", 128_000],
      ["gpt-4o-mini", 128_000],
      ["team-small", 32_768],
    ]);
    const generations = team.received.filter((request) => request.method === "POST");
    expect(generations.length).toBeGreaterThan(0);
    for (const request of generations) {
      expect(request.path).toBe("/v1/chat/completions");
      expect(request.body?.model).toBe("team-small");
      expect(request.headers["x-gateway-client"]).toBe("codex");
      // Codex 0.169 and 0.171 name their session `session-id`; it reaches the team as it came.
      expect(request.headers["session-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    expect(`${result.stdout}${result.stderr}${log()}`).not.toContain(GOOD_LOGIN_KEY);
  }, 240_000);
});

describe.skipIf(!hasTmux || !hasTool("claude"))("Claude Code's model picker through gateway run claude, with a team gateway behind", () => {
  it("/model offers the team catalog's claude* model, from the gateway's list", async () => {
    reportToolRun("claude", "native", "messages");
    const { team, env, home, work, log } = await teamSetUp("messages", { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined, TERM: "xterm-256color" });
    trustWorkFolder(home, work);
    const terminal = openTerminal("claude-team-picker", `cd '${work}' && ${envPrefix(env)} '${process.execPath}' '${BIN}' run claude`, { columns: 120, rows: 45 });
    try {
      await passClaudeFirstRun(terminal);
      const screen = await openModelPicker(terminal, log, /claude-sonnet-4-5/);
      // 2.1.197 shows the id, then "From gateway"; 2.1.332 its own name for it: "Sonnet 4.5  From gateway (claude-sonnet-4-5)".
      expect(screen).toMatch(/claude-sonnet-4-5\b[^\n]*From gateway|From gateway \(claude-sonnet-4-5\)/);
      // The gateway asked the team's list for it (its catalog read at start, then the picker's request).
      expect(team.received.filter((request) => request.method === "GET" && request.path === "/v1/models").length).toBeGreaterThanOrEqual(2);
    } finally {
      quitClaude(terminal);
    }
  }, 150_000);
});
