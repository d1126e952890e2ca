import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRuns } from "./helpers/agent-run.js";
import { LLAMA_SERVER_DIR, LLAMA_SKIP, startLlamaServer, type LlamaServer } from "./helpers/llama-server.js";
import { hasTool } from "./helpers/tools.js";

/**
 * The real coding tools through `gateway run` against a real llama.cpp `llama-server` (issue 49): Claude Code
 * (messages -> chat), Codex (Responses -> chat), Gemini CLI (Gemini -> chat) and Qwen Code (chat, passed through).
 * Not named `agents-*`: `.ci/run` runs those twice (pinned and newest tools), and a real server's reading of a tool's
 * prompt is the slowest thing in the suite; it runs only the Qwen Code case again with the newest tools.
 * The model writes garbage; what is asserted is that the server accepted each tool's real first request (its
 * system prompt, its tool list, its fields) and that the tool exited 0. One server for the file, with room for a
 * tool's first request (`-c 131072` with the override that lifts llama.cpp's cap at the model's 2048-token training
 * window), and at most 8 output tokens, so each tool takes one turn. Claude Code is given only its Bash tool: its
 * whole first request is about 97k tokens, which took this 2-core machine over 5 minutes to read (about 250 tokens
 * a second once long); `test/llamacpp-real.test.ts` sends its recorded tools and system through the same path.
 */

const setUpRun = agentRuns();
let server: LlamaServer;

beforeAll(async () => {
  if (LLAMA_SERVER_DIR) server = await startLlamaServer(["-c", "131072", "--override-kv", "llama.context_length=int:262144", "-n", "8"]);
});

afterAll(async () => {
  await server?.close();
});

/**
 * A gateway routing every model to the server, as a `llamacpp` upstream; the server outlives each test. Reading a
 * coding tool's first prompt takes the server longer than the default wait for a first byte.
 */
function setUp() {
  const shared = { url: server.url, close: async () => undefined } as unknown as Parameters<typeof setUpRun>[0];
  return setUpRun(shared, "chat", {}, { upstreams: { local: { kind: "llamacpp", url: server.url, timeouts: { firstByteMs: 600_000 } } } });
}

/** Every model call the gateway logged for this run, each with the status it answered. */
const modelCalls = (log: string) => log.split("\n").filter((line) => /POST \/(v1|gemini)/.test(line));

describe.skipIf(!LLAMA_SERVER_DIR)(`real tools against a real llama.cpp server${LLAMA_SERVER_DIR ? "" : `: skipped, ${LLAMA_SKIP}`}`, () => {
  it.skipIf(!hasTool("claude"))("Claude Code: its first request is accepted (messages -> chat) and it exits 0", async () => {
    const { run, log } = setUp();
    const result = await run(["claude", "-p", "Say hi.", "--model", "claude-sonnet-4-5", "--tools", "Bash"], 300_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    const calls = modelCalls(log());
    expect(calls.some((line) => /messages -> chat/.test(line) && / 200 /.test(line)), log()).toBe(true);
  }, 600_000);

  it.skipIf(!hasTool("codex"))("Codex: its first request is accepted (Responses -> chat) and it exits 0", async () => {
    const { run, log } = setUp();
    const result = await run(["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "Say hi."], 300_000);
    expect(result.code, result.stderr).toBe(0);
    expect(modelCalls(log()).some((line) => /responses -> chat/.test(line) && / 200 /.test(line)), log()).toBe(true);
  }, 600_000);

  it.skipIf(!hasTool("gemini"))("Gemini CLI: its first request is accepted (Gemini -> chat) and it exits 0", async () => {
    const { run, log } = setUp();
    const result = await run(["gemini", "-m", "gemini-2.5-pro", "-p", "Say hi.", "--yolo"], 300_000);
    expect(result.code, result.stderr).toBe(0);
    expect(modelCalls(log()).some((line) => /gemini -> chat/.test(line) && / 200 /.test(line)), log()).toBe(true);
  }, 600_000);

  /**
   * Qwen Code's first request is about 48k of this model's tokens even with only its shell tool (its system prompt
   * and skill list are 37 KB, and the tiny model's tokenizer spends a token on about 1.2 bytes). Left alone it also
   * starts its managed auto-memory extraction after the turn, a background agent with a second prompt of about 38k
   * tokens (0.15.10 then sent five more short requests in it) that it waits for before exiting: 65k + 38k tokens to
   * read, which took this loaded 2-core machine about 5 minutes (the gateway answered every request 200). A user
   * would turn that agent off the same way: `memory.enableManagedAutoMemory: false` in `~/.qwen/settings.json`.
   */
  it.skipIf(!hasTool("qwen"))("Qwen Code: its first request is accepted (chat, passed through) and it exits 0", async () => {
    const { run, log, home } = setUp();
    mkdirSync(join(home, ".qwen"), { recursive: true });
    writeFileSync(join(home, ".qwen", "settings.json"), JSON.stringify({ memory: { enableManagedAutoMemory: false } }));
    const result = await run(["qwen", "-m", "qwen3-coder-plus", "-p", "Say hi.", "--yolo", "--core-tools", "run_shell_command"], 300_000);
    expect(result.code, `${result.stderr}\n${log()}`).toBe(0);
    const calls = modelCalls(log());
    expect(calls.length, log()).toBeGreaterThan(0);
    expect(calls.every((line) => / 200 /.test(line) && !/ -> /.test(line)), log()).toBe(true);
    // Every call is the turn's own request: Qwen Code 0.15.10 sometimes sends it again after the tiny model's
    // one-token reply (the same 37,189 input tokens, read from llama.cpp's cache), while the memory agent's prompt
    // is another size. One input count for every call is what says the agent stayed off.
    const inputs = new Set(calls.map((line) => /tokens (\d+)\//.exec(line)?.[1]));
    expect([...inputs], log()).toEqual([expect.stringMatching(/^\d+$/)]);
  }, 600_000);
});
