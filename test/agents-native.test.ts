import { describe, expect, it } from "vitest";
import { qwenShell, startAgentUpstream, type ShellTool } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * The real coding tools do a tool-using turn through `gateway run` on an upstream that speaks their own format, so
 * the gateway passes every byte through: Claude Code on messages, Codex on Responses, Gemini CLI on Gemini, Qwen Code
 * on chat. The fake upstream calls the tool's shell with `expr 40 + 2` and then answers with what the tool said: "42"
 * appears only if the tool really ran the command. The same turn on an upstream of another format is in
 * agents-translated.test.ts.
 */

const COMMAND = "expr 40 + 2";
const FINAL = "The command printed its answer.";
const setUpRun = agentRuns();

async function setUp(tool: ShellTool, format: "chat" | "messages" | "responses" | "gemini") {
  const upstream = await startAgentUpstream({ tool, command: COMMAND, final: FINAL });
  return { upstream, ...setUpRun(upstream, format) };
}

const shell = (command: string) => ({ command, description: "Add two numbers" });

describe("real tools on an upstream of their own format", () => {
  it.skipIf(!hasTool("claude"))("Claude Code runs Bash on a messages upstream and prints the final text", async () => {
    reportToolRun("claude", "native", "messages");
    const { upstream, run, log } = await setUp({ name: "Bash", args: shell }, "messages");
    const result = await run(["claude", "-p", "Run the shell command and report its output.", "--model", "claude-sonnet-4-5", "--allowedTools", "Bash"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${FINAL} [tool said: 42`);
    expect(upstream.moves).toContain("call");
    expect(upstream.received.filter((r) => r.method === "POST").every((r) => r.path.endsWith("/v1/messages"))).toBe(true);
    expect(log()).not.toContain("->");
  }, 150_000);

  it.skipIf(!hasTool("codex"))("Codex runs exec_command on a Responses upstream and prints the final text", async () => {
    reportToolRun("codex", "native", "responses");
    // With the gateway's catalog (SPEC 12) Codex offers its shell as the plain function `exec_command`.
    const exec = { name: "exec_command", args: (command: string) => ({ cmd: command }) };
    const { upstream, run } = await setUp(exec, "responses");
    const result = await run(["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Run the shell command and report its output."]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(result.stdout).toMatch(/tool said: [^\]]*\b42\b/);
    expect(upstream.received.filter((r) => r.method === "POST").every((r) => r.path === "/v1/responses")).toBe(true);
  }, 150_000);

  it.skipIf(!hasTool("gemini"))("Gemini CLI runs run_shell_command on a Gemini upstream and prints the final text", async () => {
    reportToolRun("gemini", "native", "gemini");
    const { upstream, run } = await setUp({ name: "run_shell_command", args: shell }, "gemini");
    const result = await run(["gemini", "-m", "gemini-2.5-pro", "-p", "Run the shell command and report its output.", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(result.stdout).toMatch(/tool said: [\s\S]*42/);
    expect(upstream.received.filter((r) => r.method === "POST").every((r) => r.path.startsWith("/gemini/v1beta/models/"))).toBe(true);
  }, 150_000);

  it.skipIf(!hasTool("qwen"))("Qwen Code runs run_shell_command on a chat upstream and prints the final text", async () => {
    reportToolRun("qwen", "native", "chat");
    const { upstream, run } = await setUp(qwenShell("Add two numbers"), "chat");
    const result = await run(["qwen", "-m", "agent-model", "-p", "Run the shell command and report its output.", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(result.stdout).toMatch(/Output: 42|tool said: [\s\S]*42/);
    expect(upstream.received.filter((r) => r.method === "POST").every((r) => r.path === "/v1/chat/completions")).toBe(true);
  }, 150_000);
});
