import { describe, expect, it, vi } from "vitest";
import { SUMMARY_PROMPT } from "../src/formats/responses/compaction.js";
import { agentRuns } from "./helpers/agent-run.js";
import { startLongSession } from "./helpers/long-session.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Codex over the gateway's Responses WebSocket (SPEC 12), with the real Codex on a chat-only upstream: through
 * `gateway run codex` (its provider says `supports_websockets = true`) and through its built-in OpenAI provider
 * (`openai_base_url`, which always tries the socket first). A ten-call session with a compaction on the way: each turn
 * is a message on the socket carrying only its new items, the gateway expands it with what the socket served before,
 * and the fake checks that every chat request holds the whole conversation (each earlier output before the
 * compaction, the summary and each later output after it). The gateway's log shows every model call as a message on
 * the socket and no upgrade refused.
 */

const CALLS = 10;
const COMPACT_AFTER = 6;
const FINAL = "All socket-session commands ran.";
const PROMPT = "Run the long-session commands one at a time, then say that they ran.";
const setUp = agentRuns();
const REFUSED = /WebSocket upgrade refused/;
const OVER_SOCKET = /POST \/v1\/responses over WebSocket \S+ 200/g;

/** The gateway's log of a session: every model call over the socket, no refused upgrade, no call over plain HTTP. */
function expectAllOverSocket(log: string) {
  expect(log).not.toMatch(REFUSED);
  expect(log.match(OVER_SOCKET)?.length ?? 0).toBeGreaterThanOrEqual(CALLS + 1);
  expect(log).not.toMatch(/POST \/v1\/responses (?!over WebSocket)\S+ \d{3}/);
}

type Session = Awaited<ReturnType<typeof startLongSession>>;

function expectWholeSession(upstream: Session) {
  expect(upstream.issued()).toBe(CALLS);
  expect(new Set(upstream.compactions)).toEqual(new Set([COMPACT_AFTER]));
  expect(upstream.problems).toEqual([]);
}

/** Codex's built-in OpenAI provider at the gateway, signed in with the local key (as in agents-codex-remote-compaction). */
const CODEX_THROUGH_OPENAI_PROVIDER = [
  "printenv OPENAI_API_KEY | codex login --with-api-key >/dev/null",
  'exec codex -c "openai_base_url=\"$OPENAI_BASE_URL\"" -c check_for_update_on_startup=false -c analytics.enabled=false "$@"',
].join(" && ");

describe.skipIf(!hasTool("codex"))("Codex over the gateway's Responses WebSocket, on a chat-only upstream", () => {
  it("gateway run codex: ten exec_command calls and a compaction at the catalog's window, every turn a message on the socket, every request whole", async () => {
    reportToolRun("codex", "translated", "chat", "websocket");
    const upstream = await startLongSession({ tool: { name: "exec_command", args: (command) => ({ cmd: command }) }, calls: CALLS, compactAfter: COMPACT_AFTER, final: FINAL, hugePrompt: 30_000 });
    const { run, log } = setUp(upstream, "chat", {}, { upstreams: { local: { url: upstream.url, formats: ["chat"], key: "none", contextWindow: 32_000 } } });
    const result = await run(["codex", "-m", "agent-model", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", PROMPT], 240_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expectWholeSession(upstream);
    // The gateway runs detached: its line for the last request may land just after Codex exits.
    await vi.waitFor(() => expectAllOverSocket(log()));
  }, 300_000);

  it("its built-in OpenAI provider: the same session with a remote compaction, all over the socket, no upgrade retried", async () => {
    reportToolRun("codex", "translated", "chat", "websocket");
    const exec = (command: string) => ({ input: `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)} });\ntext(r.output);` });
    const upstream = await startLongSession({ tool: { name: "functions__exec", args: exec }, calls: CALLS, compactAfter: COMPACT_AFTER, final: FINAL, hugePrompt: 150_000 });
    const { run, log } = setUp(upstream, "chat");
    const result = await run(["--", "sh", "-c", CODEX_THROUGH_OPENAI_PROVIDER, "sh", "-c", "model_auto_compact_token_limit=100000", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", PROMPT], 240_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expectWholeSession(upstream);
    // The remote compaction (compaction_trigger) went over the socket too, answered by the gateway's summary request.
    expect(upstream.received.filter((request) => request.raw.toString("utf8").includes(SUMMARY_PROMPT.slice(0, 60)))).toHaveLength(upstream.compactions.length);
    // The gateway runs detached: its line for the last request may land just after Codex exits.
    await vi.waitFor(() => expectAllOverSocket(log()));
  }, 300_000);
});
