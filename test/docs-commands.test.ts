import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, recordOutput } from "./helpers/cli.js";
import { freePort } from "./helpers/free-port.js";
import { privateDir } from "./helpers/tools.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream } from "./helpers/fake-upstream.js";
import { kindServer, serverFixture } from "./helpers/kind-servers.js";
import { closeAfterEach } from "./helpers/close-after-each.js";
import { fencedBlocks, transcript, type FencedBlock } from "./helpers/markdown-blocks.js";

/**
 * Every fenced block of docs/commands.md and of the README's Commands section, run as written in a fresh HOME
 * (`gateway` on PATH as `npm link` puts it, the built-in echo upstream or a fake, a private port) or loaded where it
 * is a config or a record, and its output compared with what the page shows, in the page's terms (`asOnPage`). The
 * blocks that need the keychain run against npm test's private Secret Service; the few that cannot run here are in
 * `CANNOT_RUN`, each with its reason. A block in no list fails the first test, so a new block cannot go unchecked.
 */

const PAGE = readFileSync(new URL("../docs/commands.md", import.meta.url), "utf8");
const blocks = fencedBlocks(PAGE);
const block = (id: string): FencedBlock => blocks.find((b) => b.id === id) ?? expect.fail(`no block ${id}`);

const CANNOT_RUN: Readonly<Record<string, string>> = {
  "`gateway service` 1": "needs a systemd user manager, which the test machine does not run; test/service.test.ts runs the same steps against stand-in systemctl and launchctl",
  "`gateway run` 2": "the real tools against a real model; test/agents-*.test.ts run each",
  "`gateway add` / `gateway remove` 1": "ways of adding, each with its server at its usual address (Ollama's 11434, vLLM, OpenAI's API, a team's gateway) or a key typed at a terminal; test/cli-add-remove.test.ts and test/team-cli.test.ts run them against fakes",
};

/** Blocks that need the OS keychain: run against npm test's private Secret Service (scripts/with-keyring.sh). */
const RUN_WITH_KEYCHAIN = ["`gateway login` / `gateway logout` 1", "`gateway status` 1", "`gateway status` 2", "`gateway doctor` 1"];
const keyring = process.env.GATEWAY_TEST_KEYRING === "1";

const opened = closeAfterEach();
/** A fresh HOME and the environment a person's shell has: `gateway` on PATH, no variable of the gateway's but the port. */
let home: string;
let port: number;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  home = privateDir("docs-commands-");
  port = await freePort();
  const bin = join(home, ".local-bin");
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, "gateway"));
  env = { HOME: home, PATH: `${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, GATEWAY_PORT: String(port), NO_COLOR: "1", TZ: "UTC" };
});
afterAll(() => {
  spawnSync("sh", ["-c", "gateway stop"], { env });
  rmSync(home, { recursive: true, force: true });
});

interface ShellOptions {
  cwd?: string;
  /** The terminal's width, for tables that fit it; without it, output is piped. */
  columns?: number;
  /** Variables this shell has besides the fresh HOME's. */
  vars?: Record<string, string>;
  shell?: "sh" | "fish";
}

/** Runs a shell command line as typed, stdout and stderr together as a terminal shows them. */
async function sh(command: string, options: ShellOptions = {}): Promise<{ code: number | null; output: string }> {
  // `script` gives the command a terminal of that width, for tables that fit the terminal
  const line = options.columns === undefined ? `exec 2>&1\n${command}` : `script -qec 'stty cols ${options.columns}; ${command.replaceAll("'", "'\\''")}' /dev/null`;
  // asynchronous, so that fakes in this process answer while it runs
  const child = spawn(options.shell ?? "sh", ["-c", options.shell === "fish" ? command : line], { env: { ...env, ...options.vars }, cwd: options.cwd ?? home, stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  recordOutput([`(docs/commands.md) ${command}`], stdout, stderr);
  return { code, output: (stdout + stderr).replaceAll("\r\n", "\n") };
}

/** The output in the page's terms: its port, home, pids, dates and the local key as the page writes them. */
function asOnPage(output: string): string {
  const today = new Date().toISOString().slice(0, 10);
  return output
    .replaceAll(home, "/home/you")
    .replaceAll(`:${port}`, ":8484")
    .replace(new RegExp(`\\b([Pp]ort) ${port}\\b`, "g"), "$1 8484")
    .replaceAll(`gateway-${port}`, "gateway-8484")
    .replaceAll(today, "2026-11-23")
    .replace(/\bpid \d+/g, "pid 13984")
    .replace(/Gateway \d+ stopped/g, "Gateway 13984 stopped")
    .replace(/gw-[A-Za-z0-9_-]{43}/g, "gw-…");
}

interface TranscriptOptions extends ShellOptions {
  /** Which of the `$` lines to run (default: all). */
  steps?: (command: string) => boolean;
  /** The page shows some of the output's lines, in order, not all of them. */
  excerpt?: boolean;
  /** Rewrites the output before it is put in the page's terms: a fake's address as the page's, say. */
  rewrite?: (output: string) => string;
}

/** A command that runs until it is stopped (`gateway start`, `logs -f`), as typed in a shell of the fresh HOME. */
function runUntilStopped(command: string, vars: Record<string, string> = {}) {
  const child = spawn("sh", ["-c", `exec ${command}`], { env: { ...env, ...vars }, cwd: home, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  // both, in the order they came, as a terminal shows them
  let both = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    both += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    both += chunk.toString();
  });
  const exited = new Promise<string>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? String(code))));
  return {
    output: () => ({ stdout, stderr, both }),
    /** Resolves once stdout and stderr together match; rejects if the command ends first. */
    seen: (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => pattern.test(both) && resolve();
        child.stdout.on("data", check);
        child.stderr.on("data", check);
        void exited.then(() => reject(new Error(`${command} ended: ${stdout}${stderr}`)));
        check();
      }),
    /** Sends the signal, and resolves with how it ended: its exit code, or the signal that ended it. */
    stop: async (signal: NodeJS.Signals): Promise<string> => {
      child.kill(signal);
      const how = await exited;
      recordOutput([`(docs/commands.md) ${command}`], stdout, stderr);
      return how;
    },
  };
}

/** Each `$` line run in turn, its output compared line by line with the page's (`…` on the page stands for anything). */
async function runTranscript(text: string, options: TranscriptOptions = {}): Promise<void> {
  for (const step of transcript(text).filter((step) => options.steps?.(step.command) ?? true)) {
    const { code, output } = await sh(step.command, options);
    if (step.output.length === 0) {
      expect(code, `${step.command}\n${output}`).toBe(0);
      continue;
    }
    const shown = asOnPage(options.rewrite?.(output) ?? output).trimEnd().split("\n");
    // any pid, on the page as in the output, reads 13984
    const page = step.output.map((line) => new RegExp(`^${line.replaceAll("/home/me/", "/home/you/").replace(/\bpid \d+/g, "pid 13984").split("…").map(escape).join(".*")}$`));
    if (options.excerpt) {
      let at = 0;
      for (const line of page) {
        at = shown.findIndex((shownLine, i) => i >= at && line.test(shownLine));
        expect(at, `${step.command}: ${line}\n${shown.join("\n")}`).toBeGreaterThanOrEqual(0);
      }
      continue;
    }
    expect(shown.length, `${step.command}:\n${shown.join("\n")}\n`).toBe(page.length);
    page.forEach((line, i) => expect(shown[i], step.command).toMatch(line));
  }
}
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Each line of a list of commands (`# comment` and all), run to its end with exit 0. */
async function runEach(text: string, options: ShellOptions & { except?: Record<string, string> } = {}): Promise<void> {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const except = options.except ?? {};
  for (const prefix of Object.keys(except)) expect(lines.some((line) => line.startsWith(prefix)), prefix).toBe(true);
  for (const line of lines.filter((line) => !Object.keys(except).some((prefix) => line.startsWith(prefix)))) {
    const { code, output } = await sh(line, options);
    expect(code, `${line}\n${output}`).toBe(0);
  }
}

/** A git repository with a change not committed, and a test.log beside it, for `gateway chat`'s lines. */
function gitProject(): string {
  const repo = join(home, "project");
  if (existsSync(repo)) return repo;
  mkdirSync(repo);
  writeFileSync(join(repo, "test.log"), "FAIL test/x.test.ts\n");
  const git = (args: string) => expect(spawnSync("sh", ["-c", `git -c user.name=t -c user.email=t@t ${args}`], { cwd: repo, env }).status, args).toBe(0);
  git("init -q");
  git("add test.log");
  git("commit -qm one");
  writeFileSync(join(repo, "test.log"), "PASS test/x.test.ts\n");
  return repo;
}

/** docs/configuration.md's background rule as the config, and a haiku request in request.json, for `gateway routes`. */
function routesConfig(): Record<string, string> {
  const config = join(home, "routes-config");
  if (!existsSync(config)) {
    mkdirSync(config);
    const recipes = fencedBlocks(readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8"));
    writeFileSync(join(config, "config.json"), recipes.find((b) => b.id === "Claude Code's background model on a local server 1")!.text);
    writeFileSync(join(home, "request.json"), JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 512, messages: [{ role: "user", content: "Title this session" }] }));
  }
  return { GATEWAY_CONFIG_DIR: config };
}

/** A state directory whose request log holds the page's five requests, and a config of the page's prices. */
function requestLog(): Record<string, string> {
  const vars = { GATEWAY_STATE_DIR: join(home, "log-state"), GATEWAY_CONFIG_DIR: join(home, "log-config") };
  if (existsSync(vars.GATEWAY_STATE_DIR)) return vars;
  for (const dir of Object.values(vars)) mkdirSync(dir);
  writeFileSync(join(vars.GATEWAY_CONFIG_DIR, "config.json"), block("What it costs 1").text);
  const today = new Date().toISOString().slice(0, 10);
  const records = FIVE_REQUESTS.map((r) => JSON.stringify({ ...r, time: `${today}T${r.time}Z` }));
  writeFileSync(join(vars.GATEWAY_STATE_DIR, "requests.jsonl"), `${records.join("\n")}\n`);
  return vars;
}

/** What `gateway add` prints for an Ollama (a fake of its endpoints), in the page's terms: at its usual address. */
async function addedOllama(): Promise<string> {
  const ollama = opened(await startFakeUpstream({ script: kindServer(serverFixture("ollama")) }));
  const config = privateDir("docs-commands-add-");
  try {
    const { code, output } = await sh(`gateway add ${ollama.url}`, { vars: { GATEWAY_CONFIG_DIR: config } });
    expect(code, output).toBe(0);
    // At Ollama's usual address, which the fake cannot take, the entry would need no url
    return output.replaceAll(`"url":"${ollama.url}",`, "").replaceAll(ollama.url, "http://127.0.0.1:11434").replaceAll(config, "/home/you/.config/gateway").trimEnd();
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
}

it("every block of docs/commands.md is run below or named, with its reason, as one that cannot run here", async () => {
  const RUN = [
    "`gateway start` 1",
    "`gateway start` 2",
    "`gateway start` 3",
    "`gateway start --detach` / `gateway stop` 1",
    "`gateway start --detach` / `gateway stop` 2",
    "`gateway run` 1",
    "`gateway run` 3",
    "`gateway add` / `gateway remove` 2",
    "`gateway statusline` 1",
    "`gateway statusline` 2",
    "`gateway env` 1",
    "`gateway chat` 1",
    "`gateway models` 1",
    "`gateway routes` 1",
    "`gateway logs` 1",
    "`gateway logs` 2",
    "`gateway ui` 1",
    "`gateway stats` 1",
    "What it costs 1",
    "The request log 1",
    "Endpoints 1",
  ];
  expect(blocks.map((b) => b.id).sort()).toEqual([...RUN, ...RUN_WITH_KEYCHAIN, ...Object.keys(CANNOT_RUN)].sort());
});

describe("docs/commands.md's blocks, run as written", () => {
  it("gateway start: each way of starting it in the foreground comes up and stops on SIGTERM; --detach runs in the background", async () => {
    const lines = block("`gateway start` 1").text.split("\n");
    for (const line of lines) {
      const command = line.replace(/\s+#.*$/, "");
      if (command.endsWith("--detach")) {
        expect((await sh(command)).code).toBe(0);
        expect((await sh("gateway stop")).code).toBe(0);
        continue;
      }
      // `gateway start` alone takes the configured port: this shell's GATEWAY_PORT
      const gateway = runUntilStopped(command);
      await gateway.seen(/Dashboard/);
      expect(await gateway.stop("SIGTERM"), command).toBe("0");
    }
  }, 60_000);

  it("gateway start: the line a request prints, its upstream a fake that reports the page's tokens", async () => {
    const usage = { input_tokens: 1840, cache_read_input_tokens: 1536, cache_creation_input_tokens: 0, output_tokens: 215 };
    const reply = { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", stop_sequence: null, usage };
    const upstream = opened(await startFakeUpstream({ script: () => ({ json: reply }) }));
    const key = (JSON.parse((await sh("gateway env --json")).output) as { ANTHROPIC_API_KEY: string }).ANTHROPIC_API_KEY;
    const gateway = runUntilStopped("gateway start", { GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY });
    try {
      await gateway.seen(/Dashboard/);
      const res = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-sonnet-4", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      await gateway.seen(/ℹ POST .*\n/);
    } finally {
      await gateway.stop("SIGTERM");
    }
    // the times are the machine's: any number of milliseconds reads as the page's
    const line = gateway.output().both.split("\n").find((l) => l.startsWith("ℹ POST"))!.replace(/\d+ms/g, "Nms");
    expect(line).toBe(block("`gateway start` 2").text.replace(/\d+ms/g, "Nms"));
  }, 30_000);

  it("gateway start: SIGTERM lets the open request finish, then the gateway stops, as the page shows", async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const reply = { id: "c", object: "chat.completion", model: "gpt-4o", choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }], usage: { prompt_tokens: 11, completion_tokens: 40, total_tokens: 51 } };
    const upstream = opened(await startFakeUpstream({ script: async () => (await held, { json: reply }) }));
    const key = (JSON.parse((await sh("gateway env --json")).output) as { OPENAI_API_KEY: string }).OPENAI_API_KEY;
    const gateway = runUntilStopped("gateway start", { GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY });
    await gateway.seen(/Dashboard/);
    const asked = fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    });
    await expect.poll(() => upstream.received.length).toBe(1);
    const stopped = gateway.stop("SIGTERM");
    await gateway.seen(/Shutting down/);
    answer();
    expect((await asked).status).toBe(200);
    expect(await stopped).toBe("0");
    const lines = gateway.output().both.split("\n");
    const shown = lines.slice(lines.findIndex((line) => line.startsWith("ℹ Shutting down"))).filter((line) => line !== "");
    // the times are the machine's: any number of milliseconds reads as the page's
    expect(shown.map((line) => line.replace(/\d+ms/g, "Nms"))).toEqual(block("`gateway start` 3").text.replace(/\d+ms/g, "Nms").split("\n"));
  }, 30_000);

  it("gateway start --detach / stop: the page's transcript", async () => {
    await runTranscript(block("`gateway start --detach` / `gateway stop` 1").text);
  }, 30_000);

  it("a gateway that does not take your local key is not yours: status says so and names a free port", async () => {
    const someoneElse = { GATEWAY_CONFIG_DIR: join(home, "someone-else"), GATEWAY_LOCAL_KEY: "gw-someone-elses-key" };
    expect((await sh("gateway start --detach", { vars: someoneElse })).code).toBe(0);
    try {
      // the free port it names is whichever is free now; the page shows the next one
      const rewrite = (output: string) => output.replace(/--port \d+/, "--port 8485");
      await runTranscript(`$ gateway status\n${block("`gateway start --detach` / `gateway stop` 2").text}`, { excerpt: true, rewrite });
    } finally {
      const stopped = await sh("gateway stop", { vars: someoneElse });
      expect(stopped.code, stopped.output).toBe(0);
    }
  }, 30_000);

  it("gateway run: the page's transcript", async () => {
    await runTranscript(block("`gateway run` 1").text);
    // the gateway it started keeps running, as the page says, until stopped
    expect((await sh("gateway stop")).code).toBe(0);
  }, 30_000);

  it("gateway run: Claude Code's own settings that would bypass the gateway are named before the tool starts", async () => {
    const bin = privateDir("docs-commands-claude-");
    // a stand-in `claude` on PATH: the warning comes before the tool starts, whatever the tool
    writeFileSync(join(bin, "claude"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ env: { ANTHROPIC_BASE_URL: "https://proxy.example.com" } }));
    try {
      const { code, output } = await sh("gateway run claude", { vars: { PATH: `${bin}:${env.PATH}` } });
      expect(code, output).toBe(0);
      expect(asOnPage(output).split("\n")).toContain(block("`gateway run` 3").text);
    } finally {
      // the gateway `run` started for the tool
      await sh("gateway stop");
      rmSync(join(home, ".claude"), { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  }, 30_000);

  it("gateway add: the page's output, the Ollama at its own address", async () => {
    expect(await addedOllama()).toBe(block("`gateway add` / `gateway remove` 2").text.replaceAll("/home/me/", "/home/you/"));
  }, 30_000);

  it("gateway statusline: the page's transcript, after a day's requests of the page's spend, under a daily budget", async () => {
    const own = join(home, "statusline-home");
    mkdirSync(join(own, ".config", "gateway"), { recursive: true });
    mkdirSync(join(own, ".local", "state", "gateway"), { recursive: true });
    // $1 a million input tokens: $1.51 by another session, then $0.41 by the page's, 83% of a $2.31 day
    const config = { upstream: "anthropic", upstreams: { anthropic: { kind: "anthropic", key: "none" } }, budgets: { daily: 2.31 }, prices: { "claude-sonnet-4-5": { input: 1, output: 0 } } };
    writeFileSync(join(own, ".config", "gateway", "config.json"), JSON.stringify(config));
    const today = new Date().toISOString().slice(0, 10);
    const request = (time: string, session: string, inputTokens: number) =>
      JSON.stringify({ time: `${today}T${time}Z`, requestId: `req_${time}`, method: "POST", path: "/v1/messages", family: "messages", model: "claude-sonnet-4-5", upstream: "anthropic", echo: false, format: "messages", upstreamFormat: "messages", status: 200, durationMs: 1000, ttfbMs: 100, inputTokens, outputTokens: 0, session, outcome: "complete" });
    writeFileSync(join(own, ".local", "state", "gateway", "requests.jsonl"), `${request("14:00:00.000", "an-earlier-session", 1_510_000)}\n${request("14:05:00.000", "4b1c…", 410_000)}\n`);
    const vars = { HOME: own };
    // the running gateway's spend ledger reads the day's requests from the log as it starts
    const started = await sh("gateway start --detach", { vars });
    expect(started.code, started.output).toBe(0);
    try {
      await runTranscript(block("`gateway statusline` 1").text, { vars });
      await runTranscript(readmeBlock("`gateway statusline` 1"), { vars });
    } finally {
      await sh("gateway stop", { vars });
    }
  }, 30_000);

  it("gateway statusline: the settings line is JSON whose command runs", async () => {
    const settings = JSON.parse(block("`gateway statusline` 2").text) as { statusLine: { type: string; command: string } };
    expect(settings.statusLine.type).toBe("command");
    const line = await sh(`echo '{"session_id": "s-1"}' | ${settings.statusLine.command}`);
    expect(line.code).toBe(0);
    expect(asOnPage(line.output)).toMatch(/^gateway(: not running \(start it: gateway start\)| :8484 · .*)\n$/);
  });

  it("gateway env: each line sets the variables in its shell", async () => {
    const [posix, fish, powershell, json] = block("`gateway env` 1").text.split("\n").map((line) => line.replace(/\s+#.*$/, ""));
    const shown = (code: string) => asOnPage(code.trim());
    expect(shown((await sh(`${posix}; echo "$OPENAI_BASE_URL $ANTHROPIC_API_KEY"`)).output)).toBe("http://127.0.0.1:8484/v1 gw-…");
    if (spawnSync("sh", ["-c", "command -v fish"]).status === 0) expect(shown((await sh(`${fish}; echo $GOOGLE_GEMINI_BASE_URL`, { shell: "fish" })).output)).toBe("http://127.0.0.1:8484/gemini");
    // PowerShell is not on the test machine: its line is checked for what it evaluates, the same variables as $env: lines
    expect(powershell).toBe("gateway env --shell powershell | Invoke-Expression");
    expect(shown((await sh("gateway env --shell powershell")).output).split("\n")[0]).toBe("$env:OPENAI_BASE_URL = 'http://127.0.0.1:8484/v1'");
    expect(Object.keys(JSON.parse((await sh(json!)).output))).toEqual(["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"]);
  });

  it("gateway chat: each line, in a git repository with a change and beside a test.log", async () => {
    await runEach(block("`gateway chat` 1").text, { cwd: gitProject(), except: { "gateway chat -m echo-1   ": "interactive: it reads a terminal; test/chat-interactive.test.ts types into one" } });
  }, 60_000);

  it("gateway models: the page's transcript", async () => {
    await runTranscript(block("`gateway models` 1").text);
  }, 30_000);

  it("gateway routes: the page's transcript, with docs/configuration.md's background rule and a haiku request", async () => {
    await runTranscript(block("`gateway routes` 1").text, { vars: routesConfig() });
  }, 30_000);

  describe("with a request log of the page's five requests and its prices", () => {
    let vars: Record<string, string>;
    beforeAll(() => {
      vars = requestLog();
    });

    it("gateway logs: the page's table on 120 columns, and on 80", async () => {
      await runTranscript(block("`gateway logs` 1").text, { vars, columns: 120, steps: (command) => !command.startsWith("gateway logs -f ") });
      const page = block("`gateway logs` 2").text.split("\n");
      const narrow = asOnPage((await sh("gateway logs -n 5", { vars, columns: 80 })).output).split("\n");
      expect(narrow[0]).toBe(page[0]);
      expect(narrow.slice(narrow.indexOf(page[1]!), narrow.indexOf(page[1]!) + 2)).toEqual(page.slice(1));
    });

    it("gateway logs -f: the page's line prints the table and keeps following until Ctrl-C", async () => {
      const line = transcript(block("`gateway logs` 1").text).find((step) => step.command.startsWith("gateway logs -f "))!.command;
      const follow = runUntilStopped(line, vars);
      await follow.seen(/wrong local key/);
      // Ctrl-C ends it quietly: exit 0 once its handler is in place, by the signal if it comes before
      expect(["0", "SIGINT"]).toContain(await follow.stop("SIGINT"));
      expect(follow.output().stderr).toBe("");
      expect(follow.output().stdout.split("\n")[0]).toMatch(/^TIME +CLIENT +REQUEST/);
    });

    it("gateway stats: the page's transcript", async () => {
      await runTranscript(block("`gateway stats` 1").text, { vars });
    });
  });

  it("gateway ui: the page's transcript, with a gateway running (else it starts one first, and says so)", async () => {
    expect((await sh("gateway start --detach")).code).toBe(0);
    await runTranscript(block("`gateway ui` 1").text);
    expect((await sh("gateway stop")).code).toBe(0);
  }, 30_000);

  it("the request log's example record has the fields of a real one, and the error envelopes are the gateway's own", async () => {
    expect((await sh("gateway start --detach")).code).toBe(0);
    const key = (JSON.parse((await sh("gateway env --json")).output) as { OPENAI_API_KEY: string }).OPENAI_API_KEY;
    const url = `http://127.0.0.1:${port}`;
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "user-agent": "curl/7.88.1" },
      body: JSON.stringify({ model: "echo-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    const log = join(home, ".local", "state", "gateway", "requests.jsonl");
    const lastRecord = () => JSON.parse(readFileSync(log, "utf8").trim().split("\n").at(-1)!) as Record<string, unknown>;
    await expect.poll(() => lastRecord().userAgent, { timeout: 5_000 }).toBe("curl/7.88.1");
    const example = JSON.parse(block("The request log 1").text) as Record<string, unknown>;
    expect(Object.keys(example)).toEqual(Object.keys(lastRecord()));
    const [chat, messages] = block("Endpoints 1").text.split("\n").map((line) => JSON.parse(line) as unknown);
    const wrongKey = async (path: string, headers: Record<string, string>) => {
      const reply = await fetch(`${url}${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{}" });
      expect(reply.status).toBe(401);
      return JSON.parse((await reply.text()).replace(/"message":"[^"]*"/, '"message":"…"')) as unknown;
    };
    expect(await wrongKey("/v1/chat/completions", { authorization: "Bearer gw-wrong" })).toEqual(chat);
    expect(await wrongKey("/v1/messages", { "x-api-key": "gw-wrong", "anthropic-version": "2023-06-01" })).toEqual(messages);
    expect((await sh("gateway stop")).code).toBe(0);
  }, 30_000);
});

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
/** The README's one example per command: its Commands section. Its other blocks are run by test/readme-*.test.ts. */
const readmeBlocks = fencedBlocks(README.slice(README.indexOf("\n## Commands\n"), README.indexOf("\n## Configuration\n")));
const readmeBlock = (id: string): string => (readmeBlocks.find((b) => b.id === id) ?? expect.fail(`no README block ${id}`)).text;

describe.skipIf(!keyring)("docs/commands.md's keychain blocks (and the README's), against a real Secret Service", () => {
  const bus = { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? "" };
  /** A HOME of its own, so that its config and keys are the page's alone; in the page's terms it is /home/you. */
  const ownHome = (name: string) => {
    const dir = join(home, name);
    mkdirSync(dir);
    return { vars: { ...bus, HOME: dir }, rewrite: (output: string) => output.replaceAll(dir, home) };
  };

  it("gateway login / logout: each line but those that ask for the key at a terminal, the README's too", async () => {
    const upstream = opened(await startFakeUpstream());
    const { vars } = ownHome("login-home");
    mkdirSync(join(vars.HOME, ".config", "gateway"), { recursive: true });
    writeFileSync(join(vars.HOME, ".config", "gateway", "config.json"), JSON.stringify({ upstreams: { openai: { kind: "openai", url: upstream.url } } }));
    writeFileSync(join(vars.HOME, "key.txt"), FAKE_UPSTREAM_KEY);
    await runEach(block("`gateway login` / `gateway logout` 1").text, {
      cwd: vars.HOME,
      vars: { ...vars, KEY: FAKE_UPSTREAM_KEY },
      except: { "gateway login --upstream ": "asks for the key with hidden input at a terminal", "gateway login openai --label work": "asks for the key with hidden input at a terminal" },
    });
    await runEach(readmeBlock("`gateway login` / `gateway logout` 1"), {
      cwd: vars.HOME,
      vars: { ...vars, KEY: FAKE_UPSTREAM_KEY },
      except: { "gateway login --upstream ": "asks for the key with hidden input at a terminal" },
    });
    // each login without --no-verify checked the key against the upstream's model list
    expect(upstream.received.filter((r) => r.path === "/v1/models").map((r) => r.headers.authorization)).toEqual([`Bearer ${FAKE_UPSTREAM_KEY}`, `Bearer ${FAKE_UPSTREAM_KEY}`]);
  }, 60_000);

  it("gateway status: the page's transcript with a second gateway beside, then its lines after gateway logout", async () => {
    const { vars, rewrite } = ownHome("status-home");
    const also = await freePort();
    const inPageTerms = (output: string) =>
      rewrite(output)
        .replaceAll(`:${also}`, ":9000")
        .replaceAll(`-p ${also}`, "-p 9000")
        .replace(/up [^,)]+\),/, "up 12 minutes),")
        .replace(/up [^,)]+\) \(-p/, "up 3 minutes) (-p");
    expect((await sh("printf %s sk-docs-status-0123 | gateway login --upstream https://gateway.example.com --stdin --no-verify", { vars })).code).toBe(0);
    // the most recently started gateway is the one commands talk to, the other is "also running" (without -p, the
    // second start would find the first and use it)
    expect((await sh(`gateway start --detach -p ${also}`, { vars })).code).toBe(0);
    expect((await sh(`gateway start --detach -p ${port}`, { vars })).code).toBe(0);
    try {
      await runTranscript(block("`gateway status` 1").text, { vars, rewrite: inPageTerms });
      // the README's shows the one gateway: its lines, without the other's
      const readme = readmeBlock("`gateway status` / `gateway doctor` 1");
      await runTranscript(readme, { vars, rewrite: inPageTerms, excerpt: true, steps: (command) => command === "gateway status" });
      expect((await sh("gateway logout", { vars })).code).toBe(0);
      // the running gateway reads the keychain again within its key-cache time (5 s)
      await expect.poll(async () => (await sh("gateway status", { vars })).output, { timeout: 10_000, interval: 200 }).toContain("✖ none stored");
      const after = block("`gateway status` 2").text;
      await runTranscript(`$ gateway status\n${after}`, { vars, rewrite: inPageTerms, excerpt: true });
    } finally {
      await sh(`gateway stop -p ${also}`, { vars });
      await sh("gateway stop", { vars });
    }
  }, 60_000);

  it("gateway doctor: the page's transcript, the upstream a fake at the page's address, then without a keychain", async () => {
    const upstream = opened(await startFakeUpstream());
    const { vars, rewrite } = ownHome("doctor-home");
    expect((await sh(`printf %s "$KEY" | gateway login --upstream ${upstream.url} --stdin`, { vars: { ...vars, KEY: FAKE_UPSTREAM_KEY } })).code).toBe(0);
    const text = block("`gateway doctor` 1").text;
    const inPageTerms = (output: string) => rewrite(output).replaceAll(upstream.url, "https://gateway.example.com").replace(/Node\.js \d+\.\d+\.\d+/, "Node.js 20.20.2");
    await runTranscript(text, { vars, rewrite: inPageTerms, steps: (command) => command === "gateway doctor" });
    await runTranscript(readmeBlock("`gateway status` / `gateway doctor` 1"), { vars, rewrite: inPageTerms, steps: (command) => command === "gateway doctor" });
    // "on a machine without a keychain": no session bus; the page shows the keychain's line of its output
    await runTranscript(text, { vars: { ...vars, DBUS_SESSION_BUS_ADDRESS: "" }, rewrite: inPageTerms, steps: (command) => command !== "gateway doctor", excerpt: true });
  }, 60_000);
});

describe("the README's Commands section, run as written", () => {
  it("every block is run below or named, with its reason, as one that cannot run here", () => {
    const RUN = ["`gateway start` / `gateway stop` 1", "`gateway run` 1", "`gateway env` 1", "`gateway add` / `gateway remove` 1", "`gateway chat` 1", "`gateway models` / `gateway routes` 1", "`gateway logs` / `gateway stats` 1", "`gateway ui` 1", "`gateway statusline` 1"];
    const WITH_KEYCHAIN = ["`gateway login` / `gateway logout` 1", "`gateway status` / `gateway doctor` 1"];
    const CANNOT = {
      "`gateway service` 1": CANNOT_RUN["`gateway service` 1"],
    };
    expect(readmeBlocks.map((b) => b.id).sort()).toEqual([...RUN, ...WITH_KEYCHAIN, ...Object.keys(CANNOT)].sort());
  });

  it("gateway start --detach / stop, gateway run, gateway env, gateway ui: the transcripts", async () => {
    await runTranscript(readmeBlock("`gateway start` / `gateway stop` 1"));
    await runTranscript(readmeBlock("`gateway run` 1"));
    await runTranscript(readmeBlock("`gateway env` 1"));
    await runTranscript(readmeBlock("`gateway ui` 1"));
    expect((await sh("gateway stop")).code).toBe(0);
  }, 60_000);

  it("gateway add: the Ollama at its own address", async () => {
    const [step] = transcript(readmeBlock("`gateway add` / `gateway remove` 1"));
    expect(step!.command).toBe("gateway add http://127.0.0.1:11434");
    expect(await addedOllama()).toBe(step!.output.join("\n").replaceAll("/home/me/", "/home/you/"));
  }, 30_000);

  it("gateway chat, models and routes: the transcripts", async () => {
    await runTranscript(readmeBlock("`gateway chat` 1"), { cwd: gitProject() });
    const text = readmeBlock("`gateway models` / `gateway routes` 1");
    await runTranscript(text, { steps: (command) => command.startsWith("gateway models") });
    await runTranscript(text, { steps: (command) => command.startsWith("gateway routes"), vars: routesConfig() });
  }, 60_000);

  it("gateway logs and stats: the transcript on 120 columns, stats' first lines", async () => {
    await runTranscript(readmeBlock("`gateway logs` / `gateway stats` 1"), { vars: requestLog(), columns: 120, excerpt: true });
  }, 30_000);
});

/** The five requests of the page's `gateway logs` and `gateway stats` examples, as the gateway records them (today, UTC). */
const FIVE_REQUESTS = [
  { time: "14:03:07.000", requestId: "req_1", method: "POST", path: "/v1/messages", family: "messages", model: "claude-sonnet-4-5", stream: true, upstream: "default", echo: false, format: "messages", upstreamFormat: "messages", status: 200, durationMs: 2310, ttfbMs: 412, inputTokens: 1840, outputTokens: 215, cacheReadTokens: 1536, userAgent: "claude-cli/2.1.197 (external, cli)", outcome: "complete" },
  { time: "14:03:19.000", requestId: "req_2", method: "POST", path: "/gemini/v1beta/models/gemini-2.5-pro:streamGenerateContent", family: "gemini", model: "gemini-2.5-pro", stream: true, upstream: "default", echo: false, format: "gemini", upstreamFormat: "gemini", status: 200, durationMs: 5310, ttfbMs: 812, inputTokens: 10210, outputTokens: 388, userAgent: "GeminiCLI/0.61.0 (linux; x64)", outcome: "upstream_error" },
  { time: "14:03:38.000", requestId: "req_3", method: "POST", path: "/v1/messages", family: "messages", model: "qwen3-coder", stream: true, upstream: "ollama", echo: false, format: "messages", upstreamFormat: "chat", translated: "messages -> chat", status: 200, durationMs: 9310, ttfbMs: 1812, inputTokens: 2840, outputTokens: 315, userAgent: "claude-cli/2.1.197 (external, cli)", outcome: "complete" },
  { time: "14:03:47.000", requestId: "req_4", method: "POST", path: "/v1/responses", family: "chat", model: "gpt-5-codex", stream: true, upstream: "default", echo: false, format: "responses", upstreamFormat: "responses", status: 200, durationMs: 3120, ttfbMs: 610, inputTokens: 5120, outputTokens: 240, cacheReadTokens: 4096, userAgent: "codex_exec/0.80.0 (Ubuntu 24.4.0; x86_64)", outcome: "complete" },
  { time: "14:04:02.000", requestId: "req_5", method: "POST", path: "/v1/messages", family: "messages", status: 401, durationMs: 0.2, userAgent: "curl/8.5.0", outcome: "local_error", errorCode: "invalid_api_key" },
];
