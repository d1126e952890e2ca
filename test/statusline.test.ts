import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startPlayingUpstream } from "./helpers/agent-upstream.js";
import { agentRuns } from "./helpers/agent-run.js";
import { BIN, cliEnv, runCli } from "./helpers/cli.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { completion, startFakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { LOCAL_KEY, startTestGateway, tempConfigDir } from "./helpers/gateway.js";
import { envPrefix, hasTmux, openTerminal, type Terminal } from "./helpers/terminal.js";
import { hasTool, reportToolRun } from "./helpers/tools.js";

/**
 * `gateway statusline` (SPEC 11, Status line): Claude Code's statusLine JSON on stdin, one line out (the gateway's
 * state, where the session's last request went, today's spend and the session's), exit 0 with or without a gateway;
 * and `gateway run claude` setting it as the real Claude Code's status line unless the user's settings have one.
 */

const opened = closeAfterEach();

/**
 * What Claude Code 2.1.197 gives its statusLine command on stdin, field for field as its binary builds it (`strings`
 * on claude.exe: the hook base `session_id`, `transcript_path`, `cwd`, then `model`, `workspace`, `version`, `cost`, ...).
 */
const claudeInput = (sessionId: string) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: `/home/someone/.claude/projects/-work/${sessionId}.jsonl`,
    cwd: "/work",
    hook_event_name: "Status",
    model: { id: "claude-sonnet-4-5", display_name: "Sonnet 4.5" },
    workspace: { current_dir: "/work", project_dir: "/work", added_dirs: [] },
    version: "2.1.197",
    output_style: { name: "default" },
    cost: { total_cost_usd: 0.01, total_duration_ms: 1200, total_api_duration_ms: 800, total_lines_added: 0, total_lines_removed: 0 },
    exceeds_200k_tokens: false,
    fast_mode: false,
    thinking: { enabled: false },
  });

describe("gateway statusline", () => {
  it("says the gateway is not running, and exits 0, when none answers", async () => {
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: tempConfigDir(), GATEWAY_PORT: String(await freePort()) });
    for (const args of [["statusline"], ["statusline", "-p", String(await freePort())]]) {
      const result = await runCli(args, env, claudeInput("s-1"));
      expect(result).toEqual({ code: 0, signal: null, stdout: "gateway: not running (start it: gateway start)\n", stderr: "" });
    }
    // Run by hand, with nothing on stdin, it says the same.
    expect((await runCli(["statusline"], env, "")).stdout).toBe("gateway: not running (start it: gateway start)\n");
  });

  it("names the session's last route, today's spend and the session's, and a budget near its limit", async () => {
    // $0.10 per input token: each reply (12 tokens in) costs $1.20.
    const paid = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "hi" }) }) }));
    const file = { prices: { "paid-*": { input: 100_000, output: 0 } }, budgets: { daily: 4 }, upstreams: { paid: { url: paid.url, key: "none" } } };
    const gateway = opened(await startTestGateway(undefined, { file }));
    const send = (session: string) =>
      new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, defaultHeaders: { "x-claude-code-session-id": session } }).chat.completions.create({ model: "paid-1", messages: [{ role: "user", content: "hi" }] });
    await send("s-1");
    await send("s-1");
    await send("s-2");
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: tempConfigDir(), GATEWAY_LOCAL_KEY: LOCAL_KEY });
    const port = String(gateway.port);

    const line = await runCli(["statusline", "-p", port], env, claudeInput("s-1"));
    expect(line).toEqual({ code: 0, signal: null, stdout: `gateway :${port} · → paid paid-1 · today $3.60 · session $2.40 · daily budget 90%\n`, stderr: "" });
    // A session that sent nothing has no route and no spend of its own; with no input, neither.
    expect((await runCli(["statusline", "-p", port], env, claudeInput("s-3"))).stdout).toBe(`gateway :${port} · today $3.60 · daily budget 90%\n`);
    expect((await runCli(["statusline", "-p", port], env, "")).stdout).toBe(`gateway :${port} · today $3.60 · daily budget 90%\n`);
    // The README's example is a line of this shape.
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const example = /### `gateway statusline`\n\n```sh\n\$ echo '(.*)' \| gateway statusline\n(.*)\n```/.exec(readme);
    expect(JSON.parse(example![1]!)).toMatchObject({ session_id: expect.any(String), model: { id: expect.any(String) } });
    const shape = (text: string) => text.replace(/:\d+/, ":N").replace(/\$\d+\.\d\d/g, "$X").replace(/\d+%/, "N%").replace(/→ \S+ \S+/, "→ U M");
    expect(shape(example![2]!)).toBe(shape(line.stdout.trim()));
    // Another configuration's key gets no answer: this gateway is not the one it asks about.
    const stranger = await runCli(["statusline", "-p", port], { ...env, GATEWAY_LOCAL_KEY: "gw-some-other-key" }, claudeInput("s-1"));
    expect(stranger.stdout).toBe("gateway: not running (start it: gateway start)\n");
  });

  it("shows a client's model id without control characters or escape sequences, cut to 40 characters, on one line", async () => {
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: completion({ content: "hi" }) }) }));
    const gateway = opened(await startTestGateway(undefined, { file: { upstreams: { local: { url: upstream.url, key: "none" } } } }));
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: LOCAL_KEY, defaultHeaders: { "x-claude-code-session-id": "s-esc" } });
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: tempConfigDir(), GATEWAY_LOCAL_KEY: LOCAL_KEY });
    const port = String(gateway.port);
    await client.chat.completions.create({ model: "evil\n\u001b[2J\u001b[31mred\u001b]0;title\u0007\r\u2028model\u0000\u009b1m", messages: [{ role: "user", content: "hi" }] });
    const line = await runCli(["statusline", "-p", port], env, claudeInput("s-esc"));
    expect(line).toEqual({ code: 0, signal: null, stdout: `gateway :${port} · → local evilredmodel · today ≥$0.00 · session ≥$0.00\n`, stderr: "" });
    await client.chat.completions.create({ model: `long-${"x".repeat(60)}`, messages: [{ role: "user", content: "hi" }] });
    const long = (await runCli(["statusline", "-p", port], env, claudeInput("s-esc"))).stdout;
    expect(long).toBe(`gateway :${port} · → local long-${"x".repeat(34)}… · today ≥$0.00 · session ≥$0.00\n`);
    expect(`long-${"x".repeat(34)}…`).toHaveLength(40);
  });
});

const setUp = agentRuns();
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

describe.skipIf(!hasTool("claude") || !hasTmux)("the real Claude Code's status line through gateway run claude", () => {
  /** Claude Code in tmux, past its first-run screens, its work tree trusted. */
  function openClaude(run: ReturnType<typeof setUp>): Terminal {
    writeFileSync(join(run.home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, projects: { [run.work]: { hasTrustDialogAccepted: true } } }));
    return openTerminal("statusline", `cd '${run.work}' && ${envPrefix({ ...run.env, TERM: "xterm-256color" })} '${process.execPath}' '${BIN}' run claude`);
  }

  it("shows the gateway, then the session's route and spend once it has asked something", async () => {
    reportToolRun("claude", "native", "messages");
    const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Hello from the fake model." } }));
    const run = setUp(upstream, "messages", {}, { prices: { "claude-*": { input: 100, output: 0 } } });
    terminal = openClaude(run);
    const port = run.env.GATEWAY_PORT!;
    expect(await terminal.waitFor(new RegExp(`gateway :${port} · today`), 60_000)).toMatch(new RegExp(`^\\s*gateway :${port} · today \\$\\d+\\.\\d\\d(\\s|$)`, "m"));
    terminal.keys("Say hello.", "Enter");
    const screen = await terminal.waitFor(/· session \$/, 60_000);
    expect(screen).toContain("Hello from the fake model.");
    // One session: all of today's spend is its, and its last request went to the one upstream.
    const [, today, session] = screen.match(new RegExp(`gateway :${port} · → local claude-\\S+ · today (\\$\\d+\\.\\d\\d) · session (\\$\\d+\\.\\d\\d)`)) ?? [];
    expect(session).toBe(today);
    expect(Number(session!.slice(1))).toBeGreaterThan(0);
  }, 120_000);

  it("leaves the user's own status line in place", async () => {
    const upstream = await startPlayingUpstream(() => ({ move: { kind: "text", text: "Hello." } }));
    const run = setUp(upstream, "messages");
    mkdirSync(join(run.home, ".claude"), { recursive: true });
    writeFileSync(join(run.home, ".claude", "settings.json"), JSON.stringify({ statusLine: { type: "command", command: "echo my own status line" } }));
    terminal = openClaude(run);
    const screen = await terminal.waitFor(/my own status line/, 60_000);
    expect(screen).toContain("my own status line");
    expect(screen).not.toContain("gateway :");
  }, 120_000);
});
