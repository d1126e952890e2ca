import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { statusLine } from "../src/statusline/status-line.js";
import { cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { LITELLM_KEY_INFO, startStrictLiteLLM } from "./helpers/strict/litellm.js";

/**
 * SPEC 12 through the built CLI, against the strict LiteLLM with a database (the person's virtual key known to it):
 * `gateway add <url> --team` keeps the key in the keychain and reads the catalog, `gateway catalog` shows each model
 * with its window and prices, `gateway status` the catalog and the team budget, and a team gateway that cannot be
 * reached leaves the kept catalog shown, and said to be.
 */

const opened = closeAfterEach();

describe("gateway add --team, gateway catalog, gateway status", () => {
  it("adds the team gateway, shows its catalog with windows and prices, and its budget", async () => {
    const team = opened(await startStrictLiteLLM({ masterKey: "sk-team-master-never-sent", virtualKeys: { [GOOD_LOGIN_KEY]: LITELLM_KEY_INFO } }));
    const dir = mkdtempSync(join(tmpdir(), "gateway-team-"));
    const env = cliEnv({ GATEWAY_CONFIG_DIR: dir, GATEWAY_STATE_DIR: join(dir, "state"), DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
    const added = await runCli(["add", team.url, "team", "--team", "--stdin"], env, `${GOOD_LOGIN_KEY}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain("Its catalog: 3 models, 3 with context window and prices (gateway catalog lists them).");
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8"))).toEqual({ upstreams: { team: { kind: "litellm", url: team.url, team: true } } });

    const catalog = await runCli(["catalog"], env);
    expect(catalog.code, catalog.stderr).toBe(0);
    const line = (id: string) => catalog.stdout.split("\n").find((text) => text.startsWith(`${id} `))!.split(/\s{2,}/);
    expect(line("team-small")).toEqual(["team-small", "team", "/model/info", "32,768", "$2.00", "$8.00", "reasoning, function_calling"]);
    expect(line("claude-sonnet-4-5")).toEqual(["claude-sonnet-4-5", "team", "/model/info", "128,000", "$0.15", "$0.60", "vision, function_calling"]);
    expect(catalog.stdout).toContain("team: team $12.30 of $50.00 (resets 2027-01-01T00:00:00Z)");

    const json = JSON.parse((await runCli(["catalog", "--json"], env)).stdout);
    expect(json.team.models).toHaveLength(3);
    expect(json.team.budget).toMatchObject({ spentUsd: 12.3, limitUsd: 50 });

    const status = await runCli(["status"], env);
    expect(status.stdout + status.stderr).toMatch(/Team: {6}team: catalog of 3 models read \S+; team \$12\.30 of \$50\.00/);

    const stats = JSON.parse((await runCli(["stats", "--json"], env)).stdout);
    expect(stats.budgets).toEqual([{ scope: "team", period: "team", limitUsd: 50, spentUsd: 12.3, resetsAt: "2027-01-01T00:00:00Z", readAt: expect.any(String) }]);

    // Claude Code's picker reads the messages-shaped model list: every team model is in it.
    const picker = JSON.parse((await runCli(["models", "--api", "messages", "--json"], env)).stdout);
    expect(picker.data.map((model: { id: string }) => model.id)).toEqual(["claude-sonnet-4-5", "gpt-4o-mini", "team-small"]);

    await team.close();
    const refreshed = await runCli(["catalog", "--refresh"], env);
    expect(refreshed.code).toBe(0);
    expect(refreshed.stderr).toContain("is shown.");
    expect(refreshed.stdout).toContain("team-small");
    const stale = await runCli(["status", "--json"], env);
    expect(JSON.parse(stale.stdout).upstreams[0].team).toMatchObject({ models: 3, unreadAt: expect.any(String), budget: { spentUsd: 12.3, limitUsd: 50 } });
    for (const output of [added, catalog, status, refreshed, stale]) expect(output.stdout + output.stderr).not.toContain(GOOD_LOGIN_KEY);
  });

  it("the status line says the team budget as the team gateway told it", () => {
    const answer = { version: "0", today: { spentUsd: 1, unpricedRequests: 0 }, session: null, budgets: [], teams: [{ upstream: "team", spentUsd: 12.3, limitUsd: 50, readAt: "2026-12-07T00:00:00Z" }] };
    expect(statusLine({ port: 8484, answer }, {})).toBe("gateway :8484 · today $1.00 · team $12.30 of $50.00");
  });

  it("without a team upstream, says how to mark one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gateway-team-"));
    const result = await runCli(["catalog"], cliEnv({ GATEWAY_CONFIG_DIR: dir }));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('No upstream is a team\'s gateway: mark one with "team": true, or add it with gateway add <url> --team.');
  });
});
