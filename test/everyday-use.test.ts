import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { BIN, cliEnv, recordOutput, runCli } from "./helpers/cli.js";
import { startFakeUpstream, FAKE_UPSTREAM_KEY, type FakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";
import { hasTool, privateDir as newPrivateDir, toolEnv } from "./helpers/tools.js";

/** The running-gateway record, start --detach, stop, run and env finding the gateway, with real child processes. */
const dirs: string[] = [];
const privateDir = () => {
  const dir = newPrivateDir();
  dirs.push(dir);
  return dir;
};

interface Setup {
  env: NodeJS.ProcessEnv;
  stateDir: string;
  configDir: string;
}

// The port these tests' gateways get when they name none. Never the default 8484: a developer's own gateway may be
// running there, and `run` would use it and the cleanup's `stop` would end it.
let configuredPort: string;
beforeAll(async () => {
  configuredPort = String(await freePort());
});

const setups: Setup[] = [];
function setup(extra: Record<string, string> = {}, file?: Record<string, unknown>): Setup {
  const stateDir = privateDir();
  const configDir = tempConfigDir(file);
  const s = { env: cliEnv({ GATEWAY_CONFIG_DIR: configDir, GATEWAY_STATE_DIR: stateDir, GATEWAY_PORT: configuredPort, ...extra }), stateDir, configDir };
  setups.push(s);
  return s;
}

afterEach(async () => {
  // stop every gateway a test left running, by its record
  for (const s of setups.splice(0)) await runCli(["stop"], s.env);
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const records = (stateDir: string) => readdirSync(stateDir).filter((name) => /^gateway-\d+\.json$/.test(name));

describe("start --detach, the record, env, status and stop", () => {
  it("runs in the background on the port it chose, and every command finds it there", async () => {
    const s = setup({ GATEWAY_PORT: "1" });
    const started = await runCli(["start", "--detach", "--port", "0"], s.env);
    expect(started.code).toBe(0);
    const [, url, port, pid] = /Gateway running in the background on (http:\/\/127\.0\.0\.1:(\d+)) \(pid (\d+)\)/.exec(started.stderr)!;
    expect(started.stderr).toContain(`Output:  ${join(s.stateDir, "gateway-any-port.log")}`);
    expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: "ok", upstream: "echo", pid: Number(pid) });

    // the record: pid, host, port, upstream, version, start time, 0600, and no key
    const [name] = records(s.stateDir);
    const path = join(s.stateDir, name!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(path, "utf8"));
    expect(record).toMatchObject({ pid: Number(pid), host: "127.0.0.1", port: Number(port), upstream: "echo" });
    expect(Date.parse(record.startedAt)).toBeGreaterThan(Date.now() - 60_000);
    const localKey = readFileSync(join(s.configDir, "local-key"), "utf8").trim();
    expect(readFileSync(path, "utf8")).not.toContain(localKey);

    // env and status name the picked port, whatever GATEWAY_PORT says
    const env = await runCli(["env", "--json"], s.env);
    expect(JSON.parse(env.stdout)).toMatchObject({ OPENAI_BASE_URL: `${url}/v1`, ANTHROPIC_BASE_URL: url, GOOGLE_GEMINI_BASE_URL: `${url}/gemini`, GEMINI_API_KEY: localKey });
    const status = await runCli(["status"], s.env);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`is running on ${url} (pid ${pid}`);

    // idempotent: a second --detach says so and starts nothing
    const again = await runCli(["start", "--detach"], s.env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`A gateway is already running on ${url} (pid ${pid}).`);
    expect(records(s.stateDir)).toHaveLength(1);

    const stopped = await runCli(["stop"], s.env);
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toContain(`Gateway ${pid} stopped.`);
    expect(records(s.stateDir)).toHaveLength(0);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    const none = await runCli(["stop"], s.env);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain("No gateway is running.");
    expect((await runCli(["status"], s.env)).code).toBe(1);
  });

  it("finds and stops two gateways on two ports with -p", async () => {
    const s = setup();
    const ports: string[] = [];
    for (let i = 0; i < 2; i++) {
      const started = await runCli(["start", "--detach", "--port", "0"], s.env);
      expect(started.code).toBe(0);
      ports.push(/127\.0\.0\.1:(\d+)/.exec(started.stderr)![1]!);
    }
    expect(records(s.stateDir)).toHaveLength(2);
    const first = await runCli(["status", "-p", ports[0]!], s.env);
    expect(first.stderr).toContain(`http://127.0.0.1:${ports[0]}`);
    expect((await runCli(["stop", "-p", ports[0]!], s.env)).code).toBe(0);
    expect(records(s.stateDir)).toEqual([`gateway-${ports[1]}.json`]);
    // the newest live record is now the second one
    expect(JSON.parse((await runCli(["env", "--json"], s.env)).stdout).OPENAI_BASE_URL).toBe(`http://127.0.0.1:${ports[1]}/v1`);
  });

  it("ignores and removes a stale record whose process is gone", async () => {
    const s = setup({ GATEWAY_PORT: "45999" });
    const started = await runCli(["start", "--detach", "--port", "0"], s.env);
    const pid = /pid (\d+)/.exec(started.stderr)![1]!;
    const port = /127\.0\.0\.1:(\d+)/.exec(started.stderr)![1]!;
    process.kill(Number(pid), "SIGKILL");
    await expect.poll(() => fetch(`http://127.0.0.1:${port}/health`).then(() => "up", () => "down")).toBe("down");
    const env = await runCli(["env", "--json"], s.env);
    expect(JSON.parse(env.stdout).OPENAI_BASE_URL).toBe("http://127.0.0.1:45999/v1");
    expect(records(s.stateDir)).toHaveLength(0);
  });

  it("--detach exits 1 with the reason when the gateway cannot start", async () => {
    // Reading lets the holder see the CLI's health probe hang up.
    const holder = createServer((socket) => socket.resume()).listen(0, "127.0.0.1");
    await once(holder, "listening");
    const port = (holder.address() as AddressInfo).port;
    try {
      const result = await runCli(["start", "--detach", "--port", String(port)], setup().env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`The gateway exited before it was ready (exit 1): Port ${port} on 127.0.0.1 is already in use by another program.`);
    } finally {
      holder.close();
    }
  });
});

describe("gateway run", () => {
  it("passes exit codes through, 127 for a missing command, and starts a gateway when none runs", async () => {
    const s = setup();
    const ok = await runCli(["run", "--", "node", "-e", "console.log(process.env.OPENAI_BASE_URL, process.env.GEMINI_API_KEY === process.env.OPENAI_API_KEY); process.exit(3)"], s.env);
    expect(ok.code).toBe(3);
    expect(ok.stdout).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${configuredPort}/v1 true$`, "m"));
    expect(ok.stderr).toContain(`Started a gateway in the background on http://127.0.0.1:${configuredPort}`);
    expect(records(s.stateDir)).toEqual([`gateway-${configuredPort}.json`]);
    // the command's own options stay its own
    const passed = await runCli(["run", "node", "-p", "process.argv.length"], s.env);
    expect(passed.stdout.trim()).toBe("1");
    const missing = await runCli(["run", "no-such-tool-xyz"], s.env);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain("Command not found: no-such-tool-xyz");
    const signalled = await runCli(["run", "--", "node", "-e", "process.kill(process.pid, 'SIGTERM')"], s.env);
    expect(signalled.code).toBe(143);
  });

  it("a plain `gateway run <tool>` (parsed without commander) gives the tool what the same line parsed by commander gives it", async () => {
    const s = setup();
    const show = "console.log(JSON.stringify({ env: process.env, args: process.argv.slice(1) })); process.exit(5)";
    const [plain, parsed] = [await runCli(["run", "node", "-e", show, "a", "--port", "9"], s.env), await runCli(["run", "--", "node", "-e", show, "a", "--port", "9"], s.env)];
    expect([plain.code, parsed.code]).toEqual([5, 5]);
    const [fromPlain, fromParsed] = [plain, parsed].map((result) => JSON.parse(result.stdout) as { env: Record<string, string>; args: string[] });
    expect(fromPlain!.args).toEqual(["a", "--port", "9"]);
    expect(fromPlain).toEqual(fromParsed);
    expect(fromPlain!.env.ANTHROPIC_BASE_URL).toBe(`http://127.0.0.1:${configuredPort}`);
  });

  it.skipIf(!hasTmux)("one Ctrl-C in a terminal reaches the tool once, and the tool's exit code comes back", async () => {
    const s = setup();
    // The tool counts its SIGINTs and, on the next line typed, prints the count and exits 0.
    const tool = `let n = 0; process.on("SIGINT", () => console.log("SIGINT " + ++n)); console.log("tool ready"); process.stdin.once("data", () => { console.log("SIGINTs: " + n); process.exit(0); });`;
    const terminal = openTerminal("gateway-run", `${envPrefix(s.env)} ${process.execPath} ${BIN} run -- ${process.execPath} -e '${tool}'`);
    try {
      await terminal.waitFor(/tool ready/, 20_000);
      terminal.keys("C-c");
      await terminal.waitFor(/SIGINT 1/);
      // A SIGINT passed on would have come right behind the terminal's own, long before these keys.
      terminal.keys("done", "Enter");
      const screen = await terminal.waitFor(/EXITED \d+/);
      recordOutput(["run (terminal, Ctrl-C)"], screen, "");
      expect(screen).toMatch(/^SIGINTs: 1$/m);
      expect(screen).toMatch(/EXITED 0/);
    } finally {
      terminal.close();
    }
  });

  it("--no-start fails when no gateway runs", async () => {
    const s = setup({ GATEWAY_PORT: "45998" });
    const result = await runCli(["run", "--no-start", "node", "-e", "0"], s.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No gateway is running on port 45998.");
  });
});


describe("real coding tools through gateway run, against a fake upstream", () => {
  let upstream: FakeUpstream;
  afterEach(async () => upstream?.close());

  /** A throwaway HOME, the tool on PATH, telemetry and update checks off. */
  function toolSetup(upstreamUrl = upstream.url, file?: Record<string, unknown>): Setup {
    return setup({ ...toolEnv(privateDir()), GATEWAY_UPSTREAM: upstreamUrl, ...(upstreamUrl === "echo" ? {} : { GATEWAY_API_KEY: FAKE_UPSTREAM_KEY }) }, file);
  }

  it.skipIf(!hasTool("gemini"))("gemini -p answers through the gateway", async () => {
    upstream = await startFakeUpstream();
    const s = toolSetup();
    const result = await runCli(["run", "gemini", "-m", "gemini-fake", "-p", "hello from gemini cli"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("hello from gemini cli");
    const generate = upstream.received.filter((r) => r.url.startsWith("/gemini/v1beta/models/gemini-fake:streamGenerateContent"));
    expect(generate.length).toBeGreaterThan(0);
    expect(generate[0]!.headers["x-goog-api-key"]).toBe(FAKE_UPSTREAM_KEY);
  }, 120_000);

  it.skipIf(!hasTool("claude"))("claude -p answers through the gateway", async () => {
    upstream = await startFakeUpstream();
    // Claude Code asks for its own model ids; an alias pattern maps them to the catalog's.
    const s = toolSetup(upstream.url, { models: { "claude-sonnet-4-5*": "catalog/claude-sonnet" } });
    const result = await runCli(["run", "claude", "-p", "hello from claude code", "--model", "claude-sonnet-4-5-20250929"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("fake: ");
    const messages = upstream.received.filter((r) => r.url.startsWith("/anthropic/v1/messages"));
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.at(-1)!.headers["x-api-key"]).toBe(FAKE_UPSTREAM_KEY);
    expect(messages.map((r) => JSON.parse(r.raw.toString()).model)).toContain("catalog/claude-sonnet");
  }, 120_000);

  it.skipIf(!hasTool("qwen"))("qwen -p answers through the gateway", async () => {
    upstream = await startFakeUpstream();
    const s = toolSetup();
    const result = await runCli(["run", "qwen", "-m", "gpt-fake", "-p", "hello from qwen code"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("fake: ");
    const chats = upstream.received.filter((r) => r.url === "/v1/chat/completions");
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.at(-1)!.headers.authorization).toBe(`Bearer ${FAKE_UPSTREAM_KEY}`);
  }, 120_000);

  it.skipIf(!hasTool("gemini"))("gemini -p in a folder not yet trusted exits 55 and says what to do; --skip-trust answers", async () => {
    upstream = await startFakeUpstream();
    // a fresh machine: no trust given in the environment, a folder Gemini CLI has never seen
    const { GEMINI_CLI_TRUST_WORKSPACE: _, ...env } = toolSetup().env;
    const work = privateDir();
    const refused = await runCli(["run", "gemini", "-m", "gemini-fake", "-p", "hello"], env, undefined, 90_000, work);
    expect(refused.code).toBe(55);
    expect(refused.stderr).toContain(
      'ℹ Gemini CLI does not run headless in a folder you have not trusted. Trust this one once (run `gateway run gemini` here and answer its question), or trust it for one run: `gateway run gemini --skip-trust -p "..."`.',
    );
    const trusted = await runCli(["run", "gemini", "--skip-trust", "-m", "gemini-fake", "-p", "hello from an untrusted folder"], env, undefined, 90_000, work);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain("hello from an untrusted folder");
  }, 180_000);

  it.skipIf(!hasTool("gemini"))("gemini with a state directory under a folder others can write to exits 41 and says where the settings file must live", async () => {
    upstream = await startFakeUpstream();
    const open = mkdtempSync(join(tmpdir(), "gateway-open-"));
    chmodSync(open, 0o777);
    // after the afterEach hooks, which stop the gateway through its record in there
    onTestFinished(() => rmSync(open, { recursive: true, force: true }));
    const s = toolSetup();
    const env = { ...s.env, GATEWAY_STATE_DIR: join(open, "state") };
    setups.push({ ...s, env });
    const result = await runCli(["run", "gemini", "-m", "gemini-fake", "-p", "hello"], env, undefined, 90_000);
    expect(result.code).toBe(41);
    expect(result.stderr).toContain(`Parent directory '${open}' is insecure`);
    expect(result.stderr).toContain(
      "ℹ Gemini CLI skipped the gateway's settings file, which selects its API-key sign-in: it reads none below a folder others can write to (its warning above names the folder). Keep the gateway's state directory (GATEWAY_STATE_DIR, by default ~/.local/state/gateway) under folders only you can write to.",
    );
  }, 120_000);

  it("--offline gives any command the switches that keep tools from calling home", async () => {
    const s = setup();
    const names = ["DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "GEMINI_TELEMETRY_ENABLED", "QWEN_TELEMETRY_ENABLED"];
    const show = `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n] ?? null]))))`;
    const offline = await runCli(["run", "--offline", "--", "node", "-e", show], s.env);
    expect(JSON.parse(offline.stdout)).toEqual({
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      GEMINI_TELEMETRY_ENABLED: "false",
      QWEN_TELEMETRY_ENABLED: "false",
    });
    const online = await runCli(["run", "--", "node", "-e", show], s.env);
    expect(Object.values(JSON.parse(online.stdout))).toEqual(names.map(() => null));
  });

  it.skipIf(!hasTool("qwen"))("qwen answers under --offline, its update checks and usage statistics off in a settings file of the gateway's own", async () => {
    upstream = await startFakeUpstream();
    const s = toolSetup();
    const result = await runCli(["run", "--offline", "qwen", "-m", "gpt-fake", "-p", "hello from offline qwen"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("fake: ");
    const settings = JSON.parse(readFileSync(join(s.stateDir, "qwen-code-settings-offline.json"), "utf8"));
    // Qwen Code adds the "$version" of its settings layout to the file; the switches are as written
    expect(settings).toMatchObject({ general: { enableAutoUpdate: false, enableAutoUpdateNotification: false }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } });
  }, 120_000);

  it.skipIf(!hasTool("gemini"))("gemini answers under --offline with its settings file turning off auto-update and usage statistics", async () => {
    upstream = await startFakeUpstream();
    const s = toolSetup();
    const result = await runCli(["run", "--offline", "gemini", "-m", "gemini-fake", "-p", "hello from offline gemini"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("hello from offline gemini");
    const settings = JSON.parse(readFileSync(join(s.stateDir, "gemini-cli-settings-offline.json"), "utf8"));
    expect(settings).toMatchObject({ security: { auth: { selectedType: "gemini-api-key" } }, general: { enableAutoUpdate: false }, privacy: { usageStatisticsEnabled: false } });
  }, 120_000);

  it.skipIf(!hasTool("codex"))("codex exec answers under --offline (its update check and analytics turned off with -c)", async () => {
    const s = toolSetup("echo");
    const result = await runCli(["run", "--offline", "codex", "exec", "--skip-git-repo-check", "hello from offline codex"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("echo: hello from offline codex");
  }, 120_000);

  // Codex speaks only the Responses API, which the echo upstream answers (the fake upstream does not).
  it.skipIf(!hasTool("codex"))("codex exec answers through the gateway, its own config untouched", async () => {
    upstream = await startFakeUpstream();
    const s = toolSetup("echo");
    const result = await runCli(["run", "codex", "exec", "--skip-git-repo-check", "hello from codex"], s.env, undefined, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("echo: hello from codex");
    expect(readdirSync(join(s.env.HOME!, ".codex"))).not.toContain("config.toml");
    // Over Codex's WebSocket (SPEC 12); the detached gateway's line may land just after Codex exits.
    await vi.waitFor(() => expect(readFileSync(join(s.stateDir, `gateway-${configuredPort}.log`), "utf8")).toMatch(/POST \/v1\/responses over WebSocket \S+ 200/));
  }, 120_000);
});
