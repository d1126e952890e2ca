import { describe, expect, it } from "vitest";
import { agentRuns } from "./helpers/agent-run.js";
import { startLongSession } from "./helpers/long-session.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Codex reads the gateway's model catalog (SPEC 12) through `gateway run codex` (`model_catalog_url`): the routed
 * model's context window is the configured 32,000 tokens of a small local model, so Codex compacts by itself once the
 * fake reports a 30,000-token prompt (its `auto_compact_token_limit` is 90% of the window: 28,800), where with its
 * generic fallback metadata (a window of hundreds of thousands) it would go on. And it says nothing of metadata not
 * found.
 */

const CALLS = 6;
const COMPACT_AFTER = 3;
const FINAL = "All catalog-session commands ran.";
const PROMPT = "Run the long-session commands one at a time, then say that they ran.";
const setUp = agentRuns();
/** With the catalog's metadata Codex offers its shell as a plain function (`exec_command`), not inside its code-mode `exec`. */
const execCommand = (command: string) => ({ cmd: command });

describe.skipIf(!hasTool("codex"))("Codex's model catalog through gateway run codex", () => {
  it("no 'model metadata not found', and auto-compaction at the configured window of a small local model", async () => {
    reportToolRun("codex", "translated", "chat", "catalog");
    const upstream = await startLongSession({ tool: { name: "exec_command", args: execCommand }, calls: CALLS, compactAfter: COMPACT_AFTER, final: FINAL, hugePrompt: 30_000 });
    const { run, log } = setUp(upstream, "chat", {}, { upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", contextWindow: 32_000 } } });
    const result = await run(["codex", "-m", "agent-model", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", PROMPT], 240_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    expect(result.stderr).not.toMatch(/metadata for .* not found|failed to decode models/i);
    expect(log()).toMatch(/GET \/v1\/models - 200/);
    expect(result.stdout).toContain(FINAL);
    expect(upstream.issued()).toBe(CALLS);
    expect(new Set(upstream.compactions)).toEqual(new Set([COMPACT_AFTER]));
    expect(upstream.problems).toEqual([]);
  }, 300_000);
});
