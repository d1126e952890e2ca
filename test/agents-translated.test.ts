import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { qwenShell, startAgentUpstream, type ShellTool } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import type { Received } from "./helpers/fake-upstream.js";
import { deepseekThinks } from "./helpers/strict/deepseek.js";
import { refusalOf, STRICT_KINDS, type StrictKind } from "./helpers/strict/index.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * The real coding tools do a tool-using turn through `gateway run` on an upstream that does not speak their format
 * (SPEC 10): Claude Code, Codex and Gemini CLI on a chat-only upstream of kind `openai` and of kind `deepseek` (which
 * thinks, and wants its reasoning back in the tool loop), Qwen Code on DeepSeek's messages endpoint. The fake upstream
 * is that kind's strict fake (it refuses what the real server refuses) and plays
 * the model: it calls the tool's shell with `expr 40 + 2`, and once the result comes back, answers with a sentence and
 * what the tool said. "42" appears only if the tool really ran the command.
 */

const COMMAND = "expr 40 + 2";
const FINAL = "The command printed its answer.";
const setUpRun = agentRuns();
let upstream: Awaited<ReturnType<typeof startAgentUpstream>> | undefined;

/** A kind of upstream as the tests play it: its strict fake, the one format it speaks, and the reasoning its replies carry. */
interface UpstreamKind {
  kind: string;
  strict: StrictKind;
  format: "chat" | "messages";
  reasoning?: (request: Received) => string | undefined;
}

const OPENAI: UpstreamKind = { kind: "openai", strict: STRICT_KINDS.openai, format: "chat" };
/** DeepSeek thinks (for the tools' requests, which ask it to) and wants the tool loop's reasoning_content back. */
const DEEPSEEK: UpstreamKind = { kind: "deepseek", strict: STRICT_KINDS.deepseek, format: "chat", reasoning: (request) => (request.body && deepseekThinks(request.body) ? "Thinking it over." : undefined) };
const DEEPSEEK_MESSAGES: UpstreamKind = { kind: "deepseek", strict: STRICT_KINDS["deepseek-anthropic"], format: "messages" };

/** The strict fake of `upstreamKind`, a gateway config routing every model to it, and the tool's HOME and work tree. */
async function setUp(tool: ShellTool, { kind, strict, format, reasoning }: UpstreamKind) {
  upstream = await startAgentUpstream({ tool, command: COMMAND, final: FINAL, refuse: (request) => refusalOf(strict, request), reasoning });
  const { run, work, state, log } = setUpRun(upstream, format, {}, { upstreams: { local: { kind, url: upstream.url, formats: [format], key: "none" } } });
  return { run, work, state, log };
}

describe.each([OPENAI, DEEPSEEK])("real tools on a chat-only upstream of kind $kind", (chatKind) => {
  it.skipIf(!hasTool("claude"))("Claude Code runs Bash on a chat-only upstream and prints the final text", async () => {
    reportToolRun("claude", "translated", "chat");
    const { run, log } = await setUp({ name: "Bash", args: (command) => ({ command, description: "Add two numbers" }) }, chatKind);
    const result = await run(["claude", "-p", "Run the shell command and report its output.", "--model", "claude-sonnet-4-5", "--allowedTools", "Bash"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${FINAL} [tool said: 42`);
    expect(upstream!.moves).toContain("call");
    // Model calls only: Claude Code 2.1.332 also reads the model list (discovery, which gateway run claude turns on).
    expect(upstream!.received.filter((r) => r.method === "POST").every((r) => r.path === "/v1/chat/completions")).toBe(true);
    expect(log()).toMatch(/POST \/v1\/messages claude-sonnet-4-5 .*messages -> chat/);
  }, 150_000);

  it.skipIf(!hasTool("codex"))("Codex runs exec_command on a chat-only upstream and prints the final text", async () => {
    reportToolRun("codex", "translated", "chat");
    // With the gateway's catalog (SPEC 12) Codex offers its shell as the plain function `exec_command`.
    const { run } = await setUp({ name: "exec_command", args: (command) => ({ cmd: command }) }, chatKind);
    const result = await run(["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Run the shell command and report its output."]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(result.stdout).toMatch(/tool said: [^\]]*\b42\b/);
  }, 150_000);

  it.skipIf(!hasTool("gemini"))("Gemini CLI runs run_shell_command on a chat-only upstream and prints the final text", async () => {
    reportToolRun("gemini", "translated", "chat");
    const { run } = await setUp({ name: "run_shell_command", args: (command) => ({ command, description: "Add two numbers" }) }, chatKind);
    const result = await run(["gemini", "-m", "gemini-2.5-pro", "-p", "Run the shell command and report its output.", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(result.stdout).toMatch(/tool said: [\s\S]*Output: 42/);
  }, 150_000);
});

describe("real tools on translated routes", () => {
  it.skipIf(!hasTool("codex"))("Codex lands an apply_patch edit in a file on a chat-only upstream", async () => {
    const patch = "*** Begin Patch\n*** Add File: greeting.txt\n+hello through the gateway\n*** End Patch\n";
    reportToolRun("codex", "translated", "chat");
    // The catalog's `apply_patch_tool_type: "freeform"` (SPEC 12): a custom tool, one `input` string on the chat side.
    const { run, work } = await setUp({ name: "apply_patch", args: () => ({ input: patch }) }, OPENAI);
    const result = await run(["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Create greeting.txt."]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(work, "greeting.txt"), "utf8")).toBe("hello through the gateway\n");
  }, 150_000);

  it.skipIf(!hasTool("qwen"))("Qwen Code runs run_shell_command on a messages-only upstream and prints the final text", async () => {
    reportToolRun("qwen", "translated", "messages");
    const { run } = await setUp(qwenShell("Add two numbers"), DEEPSEEK_MESSAGES);
    const result = await run(["qwen", "-m", "agent-model", "-p", "Run the shell command and report its output.", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(result.stdout).toMatch(/Output: 42/);
    expect(upstream!.received.every((r) => r.path.endsWith("/anthropic/v1/messages"))).toBe(true);
  }, 150_000);
});
