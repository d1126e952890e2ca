import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { BIN } from "./helpers/cli.js";
import { openModelPicker, passClaudeFirstRun, quitClaude, trustWorkFolder } from "./helpers/claude-screen.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Claude Code's `/model` picker through `gateway run claude` (SPEC 11): with model discovery on, Claude Code reads the
 * gateway's messages-shaped model list at start (`GET /v1/models?limit=1000`, its bearer token, a 3 s limit) and
 * offers each id holding `claude` (2.1.197: starting with it) as "From gateway". An exact alias of the config is in
 * that list, so a person sees it in `/model`.
 */

const setUp = agentRuns();
const ALIAS = "claude-gateway-local";

describe.skipIf(!hasTmux || !hasTool("claude"))("Claude Code's model picker through gateway run claude", () => {
  it("/model lists an exact claude-* alias of the config, from the gateway's model list", async () => {
    reportToolRun("claude", "native", "messages");
    const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "ok" } }));
    // Claude Code 2.1.197 skips discovery when its non-essential traffic is off, so the test leaves that on (the
    // machine has no internet; those calls fail quietly).
    const { env, home, work, log } = setUp(upstream, "messages", { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined, TERM: "xterm-256color" }, { models: { [ALIAS]: "agent-model" } });
    trustWorkFolder(home, work);
    const terminal = openTerminal("claude-picker", `cd '${work}' && ${envPrefix(env)} '${process.execPath}' '${BIN}' run claude`, { columns: 120, rows: 45 });
    try {
      await passClaudeFirstRun(terminal);
      // The list is read at start; the picker shows what it found once the reply is in.
      const screen = await openModelPicker(terminal, log, new RegExp(ALIAS));
      expect(screen).toMatch(new RegExp(`${ALIAS}\\b[^\\n]*From gateway`));
      expect(upstream.received.some((r) => r.method === "GET" && r.url === "/anthropic/v1/models?limit=1000")).toBe(true);
    } finally {
      quitClaude(terminal);
    }
  }, 150_000);
});

