import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Codex's transport through `gateway run codex` (research tools-2026 table c): its provider says it takes no
 * WebSocket, so its first request is a plain `POST /v1/responses`. The gateway writes each upgrade it refuses to its
 * log; a Codex told its provider does take WebSockets shows what that log looks like when one is tried.
 */

const setUp = agentRuns();
const REFUSED = /GET \/v1\/responses WebSocket upgrade refused/;

async function codexOnce(extra: string[] = []) {
  const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Plain HTTP it is." } }));
  const { run, log } = setUp(upstream, "responses");
  const result = await run(["codex", ...extra, "exec", "--skip-git-repo-check", "Say something."]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain("Plain HTTP it is.");
  return log();
}

describe.skipIf(!hasTool("codex"))("Codex's transport through gateway run codex", () => {
  it("the first request is a plain POST /v1/responses: no WebSocket upgrade is tried before it", async () => {
    reportToolRun("codex", "native", "responses");
    const log = codexOnce();
    const lines = (await log).split("\n");
    const firstPost = lines.findIndex((line) => /POST \/v1\/responses \S+ 200/.test(line));
    expect(firstPost).toBeGreaterThan(-1);
    expect(lines.filter((line) => REFUSED.test(line))).toEqual([]);
  }, 150_000);

  it("a provider that says it takes WebSockets tries an upgrade first, and the gateway's log shows each one it refused", async () => {
    const lines = (await codexOnce(["-c", "model_providers.gateway.supports_websockets=true"])).split("\n");
    const firstPost = lines.findIndex((line) => /POST \/v1\/responses \S+ 200/.test(line));
    const firstRefusal = lines.findIndex((line) => REFUSED.test(line));
    expect(firstRefusal).toBeGreaterThan(-1);
    expect(firstRefusal).toBeLessThan(firstPost);
  }, 150_000);
});
