import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, recordOutput, runCli } from "./helpers/cli.js";
import { freePort } from "./helpers/free-port.js";
import { hasTmux, openTerminal, type Terminal } from "./helpers/terminal.js";
import { hasTool, privateDir, TOOLS } from "./helpers/tools.js";

/** The README's recipes, run as written in a fresh HOME: the Quick start, the headless keychain, Claude Code by hand. */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const hasKeyringTools = spawnSync("sh", ["-c", "command -v dbus-launch && command -v gnome-keyring-daemon"]).status === 0;
if (!hasKeyringTools && process.env.CI) throw new Error("dbus-launch (dbus-x11) and gnome-keyring are needed for the README recipe tests");

/** The first ```sh block after `marker`, as lines (the indent of a block inside a list item left out). */
function block(marker: string): string[] {
  const at = readme.indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  const [, body] = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))!;
  return body!.split("\n").map((line) => line.trim()).filter((line) => line !== "");
}

const dirs: string[] = [];
const busPids: number[] = [];
afterAll(() => {
  // gnome-keyring leaves with its bus
  for (const pid of busPids) spawnSync("kill", [String(pid)]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh HOME, and a PATH with `gateway` (as `npm link` makes it), node and the system's tools. */
function freshHome(): { home: string; path: string } {
  const home = privateDir("readme-home-");
  dirs.push(home);
  const bin = join(home, ".local-bin");
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, "gateway"));
  return { home, path: `${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` };
}

/** The D-Bus session a recipe saved to ~/.gateway-dbus-session: its bus is killed after the tests, and the keyring with it. */
function rememberBus(home: string): void {
  const pid = /DBUS_SESSION_BUS_PID=(\d+)/.exec(readFileSync(join(home, ".gateway-dbus-session"), "utf8"))?.[1];
  if (pid) busPids.push(Number(pid));
}

describe("the Quick start", () => {
  it("runs as written: linked, started, answering, pointed at by gateway env, stopped", async () => {
    const lines = block("## Quick start");
    // The install itself is CI's job; the link runs as written, into a private npm prefix.
    expect(lines[0]).toMatch(/^npm install && npm link --ignore-scripts\s+#/);
    const { home } = freshHome();
    const prefix = join(home, ".npm-global");
    const port = String(await freePort());
    const script = ["set -e", lines[0]!.replace(/^npm install && /, ""), ...lines.slice(1)].join("\n");
    const run = spawnSync("sh", ["-c", script], {
      cwd: ROOT,
      env: { HOME: home, PATH: `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, npm_config_prefix: prefix, GATEWAY_PORT: port, NO_COLOR: "1" },
      timeout: 60_000,
      encoding: "utf8",
    });
    const out = run.stdout;
    recordOutput(["(README Quick start)"], out, run.stderr);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/✔ Gateway \S+ is running on http:\/\/127\.0\.0\.1:\d+ \(pid \d+, up .+\), upstream: echo\.[\s\S]*✔ Gateway \d+ stopped\./);
    expect(readFileSync(join(prefix, "bin", "gateway"), "utf8")).toBe(readFileSync(BIN, "utf8"));
    expect(out).toContain("echo: hello\n");
    expect(JSON.parse(out.slice(out.indexOf('{"id"'), out.lastIndexOf("}") + 1)).choices[0].message.content).toBe("echo: hi");
  }, 90_000);
});

/** The prompt of the shells the recipes are typed into, to wait for each line to finish before typing the next. */
const PROMPT = "READY> ";
const prompts = (n: number) => new RegExp(`(?:${PROMPT.trim()}[\\s\\S]*){${n}}`);

/** Types each line into a shell running in tmux, as a person pastes a recipe line by line, answering a password prompt. */
async function typeRecipe(terminal: Terminal, lines: readonly string[], password: string): Promise<string> {
  let screen = await terminal.waitFor(prompts(1));
  for (const [i, line] of lines.entries()) {
    terminal.keys("-l", line);
    terminal.keys("Enter");
    if (line.includes("Keyring password")) {
      await terminal.waitFor(/\nKeyring password:\s*$/);
      terminal.keys("-l", password);
      terminal.keys("Enter");
    }
    screen = await terminal.waitFor(prompts(i + 2), 20_000);
  }
  return screen;
}

describe.skipIf(!hasKeyringTools || !hasTmux)("the README's headless Linux keychain", () => {
  it("works as written in a fresh HOME: doctor writes and deletes, login stores, and another shell needs the bus address", async () => {
    const lines = block("**Headless Linux**").filter((line) => !line.startsWith("sudo apt-get"));
    expect(lines).toHaveLength(4);
    const { home, path } = freshHome();
    const port = await freePort();
    const env = `env -i HOME='${home}' PATH='${path}' TERM=xterm GATEWAY_PORT=${port} NO_COLOR=1`;
    const shell = openTerminal("readme-keyring", `${env} PS1='${PROMPT}' sh`, { columns: 160, rows: 50 });
    try {
      const screen = await typeRecipe(shell, lines, "recipe-password");
      rememberBus(home);
      recordOutput(["(README headless recipe)"], screen, "");
      expect(screen).toContain("✔ OS keychain: an entry can be written and deleted");
      expect(screen).not.toContain("recipe-password");
      shell.keys("-l", "printf %s sk-readme-recipe-0123 | gateway login --upstream https://gateway.example.com --stdin --no-verify");
      shell.keys("Enter");
      expect(await shell.waitFor(prompts(lines.length + 2))).toContain('✔ Key stored in the OS keychain (service "gateway", account https://gateway.example.com).');
    } finally {
      shell.close();
    }
    // A second shell: without the bus address the keychain is out of reach; with it, the key is there.
    const second = (command: string) =>
      execFileSync("sh", ["-c", `${env} sh -c '${command}' 2>&1 || true`], { timeout: 20_000 }).toString();
    const without = second("gateway status 2>&1 | grep ^Key:");
    expect(without).toContain("Key:       ✖ The OS keychain is not available: no D-Bus session bus");
    const sourced = second(". ~/.gateway-dbus-session && gateway status 2>&1 | grep ^Key:");
    expect(sourced).toBe("Key:       stored in the OS keychain for https://gateway.example.com\n");
  }, 60_000);

  it("without a password, login and doctor say what is missing: an unlocked default collection", async () => {
    const { home, path } = freshHome();
    const script = [
      "dbus-launch --sh-syntax > ~/.gateway-dbus-session && . ~/.gateway-dbus-session",
      "gnome-keyring-daemon --unlock --components=secrets </dev/null >/dev/null",
      "printf %s sk-readme-recipe-0123 | gateway login --upstream https://gateway.example.com --stdin --no-verify",
      "GATEWAY_UPSTREAM=https://gateway.example.com gateway doctor",
    ].join("\n");
    const result = spawnSync("sh", ["-c", script], { env: { HOME: home, PATH: path, NO_COLOR: "1", GATEWAY_PORT: String(await freePort()) }, timeout: 30_000 });
    rememberBus(home);
    const out = result.stdout.toString() + result.stderr.toString();
    recordOutput(["(keyring without a password)"], out, "");
    expect(out).toContain(
      "✖ The OS keychain is not available: writing to the keychain failed: the Secret Service has no unlocked default collection to keep keys in (gnome-keyring makes one only when it is started with a password on its standard input).",
    );
    expect(out).toContain('ℹ Restart it with a password: printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --replace --unlock --components=secrets');
    expect(out).toMatch(/^✖ OS keychain: The OS keychain is not available: writing to the keychain failed: the Secret Service has no unlocked default collection/m);
    expect(out).not.toContain("OS keychain reachable");
  }, 40_000);
});

describe.skipIf(!hasTmux || !hasTool("claude"))("the README's Claude Code recipe, by hand", () => {
  it("gets Claude Code past its first run to an answer through the gateway, with no question about an API key", async () => {
    const lines = block("- **Claude Code**: `gateway run claude`. By hand");
    expect(lines).toEqual(['eval "$(gateway env)"', 'export ANTHROPIC_AUTH_TOKEN="$ANTHROPIC_API_KEY"; unset ANTHROPIC_API_KEY', "claude"]);
    const { home, path } = freshHome();
    const work = privateDir("readme-claude-work-");
    dirs.push(work);
    const port = await freePort();
    // the tool's own update checks and telemetry off (what `gateway run --offline` sets): the test machine has no internet
    const env = `env -i HOME='${home}' PATH='${join(TOOLS, "node_modules", ".bin")}:${path}' TERM=xterm-256color GATEWAY_PORT=${port} DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`;
    execFileSync("sh", ["-c", `${env} gateway start --detach`], { stdio: "ignore" });
    const shell = openTerminal("readme-claude", `cd '${work}' && ${env} sh`, { columns: 120, rows: 40 });
    try {
      for (const line of lines) {
        shell.keys("-l", line);
        shell.keys("Enter");
      }
      // First run: the theme, the security notes, trusting the folder; each takes Enter. No API-key question comes.
      for (let screen = ""; !/for shortcuts/.test(screen); ) {
        screen = await shell.waitFor(/Enter to confirm|Press Enter to continue|Choose the text style|for shortcuts|Not logged in|Do you want to use this API key/, 20_000);
        expect(screen).not.toMatch(/Not logged in|Do you want to use this API key|Detected a custom API key/);
        if (!/for shortcuts/.test(screen)) shell.keys("Enter");
        await shell.waitFor(/.*/, 500);
      }
      shell.keys("-l", "hello from the readme");
      shell.keys("Enter");
      await expect
        .poll(async () => (await runCli(["logs", "--json"], { HOME: home, PATH: path, GATEWAY_PORT: String(port) })).stdout, { timeout: 30_000 })
        .toMatch(/"path":"\/v1\/messages","family":"messages"[^\n]*"status":200/);
    } finally {
      shell.keys("C-c");
      shell.keys("C-c");
      shell.close();
      execFileSync("sh", ["-c", `${env} gateway stop`], { stdio: "ignore" });
    }
  }, 120_000);
});
