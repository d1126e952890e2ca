import { describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import type { Received } from "./helpers/fake-upstream.js";
import { hasTool } from "./helpers/tools.js";

/**
 * SPEC 11, What today's tools need: the real tools read a chat server's context-length error in the words they
 * recover from. The fake chat server refuses the tool's first main request (the one that declares tools) as
 * llama.cpp does when a prompt does not fit, and answers everything else with text.
 */

const setUpRun = agentRuns();

/** llama.cpp's 400 (ggml-org/llama.cpp tools/server/server-context.cpp, ERROR_TYPE_EXCEED_CONTEXT_SIZE). */
const OVERFLOW = { error: { code: 400, message: "request (70000 tokens) exceeds the available context size (65536 tokens), try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 70000, n_ctx: 65536 } };

/**
 * vLLM's 400 when the prompt fits and the output asked for does not (vllm/renderers/params.py `_token_len_check`),
 * for a request that asked `maxTokens`.
 */
const outputTooLarge = (maxTokens: number) => ({
  error: {
    message: `This model's maximum context length is 40000 tokens. However, you requested ${maxTokens} output tokens and your prompt contains at least 9000 input tokens, for a total of at least ${maxTokens + 9000} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
    type: "BadRequestError",
    param: null,
    code: 400,
  },
});

/** A chat-only upstream that refuses the first request declaring tools with `error`, and keeps what it refused. */
async function refusingUpstream(error: (request: Received) => unknown = () => OVERFLOW) {
  const refused: Received[] = [];
  const upstream = await startPlayingUpstream(
    () => ({ move: { kind: "text", text: "A short answer." } }),
    {
      refuse: (request) => {
        if (refused.length > 0 || !Array.isArray(request.body?.tools) || request.body.tools.length === 0) return undefined;
        refused.push(request);
        return { status: 400, json: error(request) };
      },
    },
  );
  return Object.assign(upstream, { refused });
}

describe("real tools read a chat server's context overflow on a translated route", () => {
  it.skipIf(!hasTool("claude"))("Claude Code reads both numbers: its 'Prompt is too long' names the request's size and the limit", async () => {
    const upstream = await refusingUpstream();
    const { run, log } = setUpRun(upstream, "chat");
    const result = await run(["claude", "-p", "Say hello.", "--model", "claude-sonnet-4-5"]);
    expect(upstream.refused).toHaveLength(1);
    // 2.1.197 prints "Prompt is too long · the request is ~70000 tokens (limit 65536) ...": the numbers come only from
    // Anthropic's own wording, "prompt is too long: 70000 tokens > 65536 maximum".
    expect(result.stdout).toMatch(/Prompt is too long/);
    expect(result.stdout).toMatch(/70000 tokens[\s\S]*65536/);
    expect(log()).toMatch(/POST \/v1\/messages claude-sonnet-4-5 400 .*messages -> chat/);
  }, 150_000);

  it.skipIf(!hasTool("claude"))("Claude Code retries with a smaller max_tokens when only the output asked for does not fit vLLM's window", async () => {
    const upstream = await refusingUpstream((request) => outputTooLarge(request.body!.max_tokens as number));
    const { run } = setUpRun(upstream, "chat");
    const result = await run(["claude", "-p", "Say hello.", "--model", "claude-sonnet-4-5"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("A short answer.");
    const asked = upstream.received.filter((request) => Array.isArray(request.body?.tools) && (request.body.tools as unknown[]).length > 0).map((request) => request.body!.max_tokens as number);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toBeLessThan(asked[0]!);
    expect(asked[1]! + 9000).toBeLessThanOrEqual(40000);
  }, 150_000);

  it.skipIf(!hasTool("codex"))("Codex reads context_length_exceeded: it says its context window ran out", async () => {
    const upstream = await refusingUpstream();
    const { run } = setUpRun(upstream, "chat");
    const result = await run(["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Say hello."]);
    expect(upstream.refused).toHaveLength(1);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("Codex ran out of room in the model's context window.");
  }, 150_000);
});
