import { describe, expect, it } from "vitest";
import { qwenShell, type ShellTool } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { BIN } from "./helpers/cli.js";
import { PAUSED, startLongSession } from "./helpers/long-session.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Each real tool runs a long session through `gateway run` on a chat-only upstream: twelve shell calls, each a model
 * turn of its own, with one compaction on the way, an ordinary request to the model: Codex's at
 * `model_auto_compact_token_limit` and Qwen Code's chat compression start by themselves once the fake reports a large
 * prompt after the eighth call; Claude Code's `-p` runs do not auto-compact, so its session pauses there, `/compact`
 * runs in a second run (`--continue`) and a third goes on. Gemini CLI 0.61 compresses only where its history can be
 * split before a prompt of the user's or after a final answer, which a headless run of tool calls never offers (and a
 * resumed one counts its history afresh, small): its session runs in a terminal, with `/compress` typed after the
 * pause and the next prompt after that (its compression asks the model twice: a summary, then a check of it). The fake checks every request: each tool call paired with
 * its result, no earlier output lost before the compaction, the summary and every later output after it. What
 * single-turn tests cannot see: history kept and rebuilt across many translated requests.
 */

const CALLS = 12;
const COMPACT_AFTER = 8;
const FINAL = "All long-session commands ran.";
const PROMPT = "Run the long-session commands one at a time, then say that they ran.";
const setUp = agentRuns();
const shell = (command: string) => ({ command, description: "Print a step number" });

type Session = Awaited<ReturnType<typeof startLongSession>>;

/**
 * Types a line and, once the input shows it, Enter: Gemini CLI takes keys that come at once for a paste, Enter
 * included. On a loaded machine it can still be reading the text as a paste when Enter comes, and the line stays in
 * the input: Enter again, as a person would, until the line shows as sent (`> line`).
 */
async function type(terminal: ReturnType<typeof openTerminal>, line: string) {
  const text = line.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  terminal.keys("-l", line);
  await terminal.waitFor(new RegExp(text), 10_000);
  const sent = new RegExp(`^\\s*> ${text}`, "m");
  for (let tries = 0; tries < 3; tries++) {
    terminal.keys("Enter");
    if (sent.test(await terminal.waitFor(sent, 5_000))) return;
  }
}

/** What every session must show: all calls made, one compaction (its requests all after the eighth call), nothing wrong. */
function expectOneCompaction(upstream: Session) {
  expect(upstream.issued()).toBe(CALLS);
  expect(upstream.compactions.length).toBeGreaterThan(0);
  expect(new Set(upstream.compactions)).toEqual(new Set([COMPACT_AFTER]));
  expect(upstream.problems).toEqual([]);
  expect(upstream.received.every((r) => r.method !== "POST" || r.path === "/v1/chat/completions")).toBe(true);
}

/** The session: the tool's runs in order (one, or three around a compaction). */
async function longSession(tool: ShellTool, runs: string[][], options: { hugePrompt?: number; pause?: boolean } = {}) {
  const upstream = await startLongSession({ tool, calls: CALLS, compactAfter: COMPACT_AFTER, final: FINAL, ...options });
  const { run } = setUp(upstream, "chat");
  let stdout = "";
  for (const args of runs) {
    const result = await run(args, 240_000);
    expect(result.code, result.stderr).toBe(0);
    stdout = result.stdout;
  }
  expect(stdout).toContain(FINAL);
  expectOneCompaction(upstream);
}

describe("a long session through gateway run, on a chat-only upstream", () => {
  it.skipIf(!hasTool("claude"))("Claude Code: twelve Bash calls over three runs with /compact between, every result paired, the summary kept", async () => {
    reportToolRun("claude", "translated", "chat");
    const model = ["--model", "claude-sonnet-4-5"];
    const runs = [
      ["claude", "-p", PROMPT, ...model, "--allowedTools", "Bash"],
      ["claude", "-p", "/compact", "--continue", ...model],
      ["claude", "-p", "Go on with the long-session commands.", "--continue", ...model, "--allowedTools", "Bash"],
    ];
    await longSession({ name: "Bash", args: shell }, runs, { pause: true });
  }, 400_000);

  it.skipIf(!hasTool("codex"))("Codex: twelve exec calls and a compaction at model_auto_compact_token_limit, every result paired, the summary kept", async () => {
    reportToolRun("codex", "translated", "chat");
    // With the gateway's catalog (SPEC 12) Codex offers its shell as the plain function `exec_command`.
    const args = ["codex", "-c", "model_auto_compact_token_limit=100000", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", PROMPT];
    await longSession({ name: "exec_command", args: (command) => ({ cmd: command }) }, [args], { hugePrompt: 150_000 });
  }, 300_000);

  it.skipIf(!hasTmux || !hasTool("gemini"))("Gemini CLI: twelve run_shell_command calls in a terminal with /compress between, every result paired, the summary kept", async () => {
    reportToolRun("gemini", "translated", "chat");
    const upstream = await startLongSession({ tool: { name: "run_shell_command", args: shell }, calls: CALLS, compactAfter: COMPACT_AFTER, pause: true, final: FINAL });
    const { env, work } = setUp(upstream, "chat", { TERM: "xterm-256color" });
    const command = `cd '${work}' && ${envPrefix(env)} '${process.execPath}' '${BIN}' run gemini -m gemini-2.5-pro --yolo -i '${PROMPT}'`;
    const terminal = openTerminal("gemini-long", command, { columns: 120, rows: 40 });
    try {
      expect(await terminal.waitFor(new RegExp(PAUSED), 90_000)).toContain(PAUSED);
      await type(terminal, "/compress");
      expect(await terminal.waitFor(/Chat history compressed/, 60_000)).toMatch(/Chat history compressed from \d+ to \d+ tokens/);
      await type(terminal, "Go on with the long-session commands.");
      expect(await terminal.waitFor(new RegExp(FINAL), 90_000)).toContain(FINAL);
      expectOneCompaction(upstream);
    } finally {
      terminal.keys("C-c");
      terminal.keys("C-c");
      terminal.close();
    }
  }, 300_000);

  it.skipIf(!hasTool("qwen"))("Qwen Code: twelve run_shell_command calls and a chat compression, every result paired, the summary kept", async () => {
    reportToolRun("qwen", "native", "chat");
    await longSession(qwenShell("Print a step number"), [["qwen", "-m", "agent-model", "-p", PROMPT, "--yolo"]], { hugePrompt: 175_000 });
  }, 300_000);
});
