import { describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../src/formats/responses/compaction.js";
import { agentRuns } from "./helpers/agent-run.js";
import { startLongSession } from "./helpers/long-session.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * Codex's remote compaction through the gateway (SPEC 11), with the real Codex: its built-in OpenAI provider pointed
 * at the gateway (`OPENAI_BASE_URL`, which `gateway run` sets for any command, as `openai_base_url`; run through `sh` so
 * that `gateway run` adds no provider of its own) compacts remotely (codex-rs `model-provider/src/provider.rs`: remote compaction v2 for
 * the OpenAI provider), with a `compaction_trigger` request that wants exactly one `compaction` item back. On a
 * chat-only upstream the gateway asks the routed model for the summary, seals it into that item, and opens it into
 * the conversation on every later request. The session: twelve exec calls, a compaction at
 * `model_auto_compact_token_limit` once the fake reports a large prompt after the eighth, every result paired, the
 * summary and every later output in each later request, and the session's final answer.
 */

const CALLS = 12;
const COMPACT_AFTER = 8;
const FINAL = "All long-session commands ran.";
const PROMPT = "Run the long-session commands one at a time, then say that they ran.";
const setUp = agentRuns();
const exec = (command: string) => ({ input: `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)} });\ntext(r.output);` });

/**
 * Codex with its built-in OpenAI provider at the gateway, as a user sets it up: Codex 0.169 reads no OPENAI_BASE_URL,
 * so `openai_base_url` is set from it, and the provider signs in with an API key stored by `codex login
 * --with-api-key` (the gateway's local key, which `gateway run` puts in OPENAI_API_KEY). The provider tries a WebSocket
 * first, which the gateway refuses, and goes on over HTTP. The script's arguments are Codex's.
 */
const CODEX_THROUGH_OPENAI_PROVIDER = [
  'printenv OPENAI_API_KEY | codex login --with-api-key >/dev/null',
  'exec codex -c "openai_base_url=\"$OPENAI_BASE_URL\"" -c check_for_update_on_startup=false -c analytics.enabled=false "$@"',
].join(" && ");

/** The chat requests' texts, to tell which compaction ran: the gateway's summary prompt, or Codex's own (local) one. */
const sent = (upstream: Awaited<ReturnType<typeof startLongSession>>) => upstream.received.map((request) => request.raw.toString("utf8"));

describe.skipIf(!hasTool("codex"))("Codex's remote compaction through its built-in OpenAI provider, on a chat-only upstream", () => {
  it("twelve exec calls and a remote compaction (compaction_trigger) served by the gateway: the summary reaches every later request and the session ends", async () => {
    reportToolRun("codex", "translated", "chat");
    const upstream = await startLongSession({ tool: { name: "functions__exec", args: exec }, calls: CALLS, compactAfter: COMPACT_AFTER, final: FINAL, hugePrompt: 150_000 });
    const { run, log } = setUp(upstream, "chat");
    const result = await run(["--", "sh", "-c", CODEX_THROUGH_OPENAI_PROVIDER, "sh", "-c", "model_auto_compact_token_limit=100000", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", PROMPT], 200_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    expect(result.stdout).toContain(FINAL);
    expect(upstream.issued()).toBe(CALLS);
    expect(new Set(upstream.compactions)).toEqual(new Set([COMPACT_AFTER]));
    expect(upstream.problems).toEqual([]);
    const texts = sent(upstream);
    expect(texts.filter((text) => text.includes(SUMMARY_PROMPT.slice(0, 60)))).toHaveLength(upstream.compactions.length);
    expect(texts.some((text) => text.includes("CONTEXT CHECKPOINT COMPACTION"))).toBe(false);
  }, 300_000);
});
