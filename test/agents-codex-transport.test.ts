import { describe, expect, it, vi } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Codex's transport through `gateway run codex` (SPEC 12): its provider says it takes WebSockets, so its model calls
 * are messages on the gateway's Responses WebSocket, which the log shows as `POST /v1/responses over WebSocket`; told
 * its provider takes none, it uses plain `POST /v1/responses` from its first request. No upgrade is refused either way.
 */

const setUp = agentRuns();
const REFUSED = /WebSocket upgrade refused/;

async function codexOnce(extra: string[] = []) {
  const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Transport checked." } }));
  const { run, log } = setUp(upstream, "responses");
  const result = await run(["codex", ...extra, "exec", "--skip-git-repo-check", "Say something."]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain("Transport checked.");
  // The gateway runs detached: its line for the last request may land just after Codex exits.
  await vi.waitFor(() => expect(log()).toMatch(/POST \/v1\/responses .*200/));
  return log();
}

describe.skipIf(!hasTool("codex"))("Codex's transport through gateway run codex", () => {
  it("its model call is a message on the gateway's WebSocket, and no upgrade is refused", async () => {
    reportToolRun("codex", "native", "responses", "websocket");
    const log = await codexOnce();
    expect(log).toMatch(/POST \/v1\/responses over WebSocket \S+ 200/);
    expect(log).not.toMatch(REFUSED);
  }, 150_000);

  it("a provider that says it takes no WebSockets uses plain POST /v1/responses from its first request", async () => {
    const log = await codexOnce(["-c", "model_providers.gateway.supports_websockets=false"]);
    expect(log).toMatch(/POST \/v1\/responses \S+ 200/);
    expect(log).not.toMatch(/over WebSocket|WebSocket upgrade refused/);
  }, 150_000);
});
