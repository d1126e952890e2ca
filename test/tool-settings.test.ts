import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { startAgentUpstream } from "./helpers/agent-upstream.js";
import { BIN, cliEnv, runCli, runProcess, spawnCli } from "./helpers/cli.js";
import { freePort } from "./helpers/free-port.js";
import { hasStatusLine } from "../src/running/tool-settings.js";
import { hasTool, privateDir, toolEnv } from "./helpers/tools.js";

/**
 * `gateway run` warns, before the tool starts, when the tool's own settings would take it away from the gateway, and
 * only then: each warning is checked against the real tool (the request really goes elsewhere, or really gets 401),
 * and a setting the gateway's own arguments override gets no warning (the request really reaches the gateway).
 */

const dirs: string[] = [];
let elsewhere: Awaited<ReturnType<typeof startAgentUpstream>> | undefined;
let env: NodeJS.ProcessEnv | undefined;
afterEach(async () => {
  if (env) await runCli(["stop"], env);
  await elsewhere?.close();
  elsewhere = env = undefined;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A HOME and work tree for the tool, a gateway on the echo upstream, and another server it could be sent to instead. */
async function setUp() {
  // The other server answers like a model that calls no tool, so the tool finishes either way.
  elsewhere = await startAgentUpstream({ tool: { name: "no-such-tool", args: () => ({}) }, command: "", final: "" });
  const home = privateDir();
  const work = privateDir("work-");
  const state = privateDir("state-");
  dirs.push(home, work, state);
  const port = await freePort();
  env = cliEnv({ ...toolEnv(home), GATEWAY_STATE_DIR: state, GATEWAY_PORT: String(port) });
  const logFile = join(state, `gateway-${port}.log`);
  const gatewayLog = () => readFileSync(logFile, "utf8");
  return { home, work, port, elsewhere, logFile, gatewayLog, run: (args: string[]) => runCli(["run", ...args], env!, undefined, 120_000, work) };
}

/** Resolves once `file` (created later, in a directory that exists) matches `pattern`, watching its directory for changes. */
function waitForFile(file: string, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dirname(file));
    const timer = setTimeout(() => finish(new Error(`${file} never matched ${pattern}`)), timeoutMs);
    function finish(error?: Error) {
      clearTimeout(timer);
      watcher.close();
      if (error) reject(error);
      else resolve();
    }
    const check = () => {
      if (existsSync(file) && pattern.test(readFileSync(file, "utf8"))) finish();
    };
    watcher.on("change", check);
    check();
  });
}

const writeJson = (file: string, value: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
};

describe("Claude Code's settings files", () => {
  const claude = ["claude", "-p", "hi", "--model", "claude-sonnet-4-5"];

  it("a status line of the user's own: in a settings file, or settings given on the command line either way", () => {
    const home = privateDir("status-line-");
    const place = { env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude") }, cwd: home, platform: "linux" as const };
    expect(hasStatusLine(place, ["-p", "hi"])).toBe(false);
    expect(hasStatusLine(place, ["--settings", "mine.json"])).toBe(true);
    expect(hasStatusLine(place, ["--settings=mine.json"])).toBe(true);
    writeJson(join(home, ".claude", "settings.json"), { statusLine: { type: "command", command: "echo mine" } });
    expect(hasStatusLine(place, ["-p", "hi"])).toBe(true);
    rmSync(home, { recursive: true, force: true });
  });

  it.skipIf(!hasTool("claude"))("env.ANTHROPIC_BASE_URL in ~/.claude/settings.json: warned before Claude Code starts, and its requests really go there", async () => {
    const { home, run, elsewhere, gatewayLog } = await setUp();
    const file = join(home, ".claude", "settings.json");
    writeJson(file, { env: { ANTHROPIC_BASE_URL: elsewhere.url } });
    const result = await run(claude);
    expect(result.stderr.split("\n").filter((line) => line.startsWith("⚠"))).toEqual([
      `⚠ ${file} sets env.ANTHROPIC_BASE_URL: Claude Code sends its requests, with your local key, to that URL instead of the gateway. Remove it from that file to use the gateway (\`gateway run\` gives Claude Code what it needs).`,
    ]);
    expect(result.stdout).toBe("ok\n");
    expect(elsewhere.received.some((request) => request.path.startsWith("/v1/messages"))).toBe(true);
    expect(gatewayLog()).not.toContain("POST /v1/messages");
  }, 150_000);

  it.skipIf(!hasTool("claude"))("env.ANTHROPIC_AUTH_TOKEN in the project's .claude/settings.local.json: warned without its value, and the gateway really answers 401", async () => {
    const { work, logFile, gatewayLog } = await setUp();
    const file = join(work, ".claude", "settings.local.json");
    writeJson(file, { env: { ANTHROPIC_AUTH_TOKEN: "sk-settings-token-0123456789" } });
    // Claude Code retries a 401 for minutes: the run is ended once the gateway has refused it.
    const child = spawnCli(["run", ...claude], env!, [], work);
    await waitForFile(logFile, /POST \/v1\/messages - 401 .*\(wrong local key\)/);
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("close", resolve));
    const { stdout, stderr } = child.output();
    expect(stderr).toContain(`⚠ ${file} sets env.ANTHROPIC_AUTH_TOKEN: Claude Code sends that token instead of the gateway's local key, and the gateway answers 401.`);
    expect(stdout + stderr + gatewayLog()).not.toContain("sk-settings-token-0123456789");
  }, 150_000);

  it.skipIf(!hasTool("claude"))("a settings file that points Claude Code at the gateway itself gets no warning, and the request reaches the gateway", async () => {
    const { home, port, run, elsewhere } = await setUp();
    writeJson(join(home, ".claude", "settings.json"), { env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}/` } });
    const result = await run(claude);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("⚠");
    expect(result.stdout).toContain("echo:");
    expect(elsewhere.received).toEqual([]);
  }, 150_000);
});

/** Whether this process may give a child a private mount namespace with /etc overlaid (root, unshare, overlayfs). */
const canOverlayEtc =
  process.getuid?.() === 0 &&
  spawnSync("unshare", ["-m", "--propagation", "private", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs none $d && mkdir $d/u $d/w && mount -t overlay overlay -o lowerdir=/etc,upperdir=$d/u,workdir=$d/w /etc"]).status === 0;

describe("Codex's configuration", () => {
  const codex = ["codex", "exec", "--skip-git-repo-check", "hi"];

  it.skipIf(!hasTool("codex"))("the user's config.toml loses to gateway run's -c overrides: no warning, and the request reaches the gateway", async () => {
    const { home, run, elsewhere, gatewayLog } = await setUp();
    const provider = `[model_providers.elsewhere]\nname = "elsewhere"\nbase_url = "${elsewhere.url}/v1"\nwire_api = "responses"\n`;
    writeFileSync(join(home, ".codex", "config.toml"), `model_provider = "elsewhere"\nopenai_base_url = "${elsewhere.url}/v1"\n${provider}${provider.replace("elsewhere]", "gateway]")}`);
    const result = await run(codex);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("⚠");
    // Over the gateway's WebSocket (SPEC 12); the detached gateway's line may land just after Codex exits.
    await vi.waitFor(() => expect(gatewayLog()).toMatch(/POST \/v1\/responses over WebSocket \S+ 200/));
    expect(elsewhere.received).toEqual([]);
  }, 150_000);

  // The managed file lives in /etc: the tool runs in a mount namespace of its own where /etc is an overlay, so
  // nothing outside the test sees the file.
  it.skipIf(!hasTool("codex") || !canOverlayEtc)("a managed_config.toml model_provider wins over them: warned, and the request really goes there", async () => {
    const { home, work, elsewhere, gatewayLog } = await setUp();
    expect((await runCli(["start", "--detach"], env!)).code).toBe(0);
    const managed = join(home, "managed_config.toml");
    writeFileSync(managed, `model_provider = "elsewhere"\n[model_providers.elsewhere]\nname = "elsewhere"\nbase_url = "${elsewhere.url}/v1"\nwire_api = "responses"\n`);
    const overlay = privateDir("overlay-");
    dirs.push(overlay);
    const script = [
      "set -e",
      `mount -t tmpfs none ${overlay} && mkdir ${overlay}/u ${overlay}/w`,
      `mount -t overlay overlay -o lowerdir=/etc,upperdir=${overlay}/u,workdir=${overlay}/w /etc`,
      `mkdir -p /etc/codex && cp ${managed} /etc/codex/managed_config.toml`,
      `exec ${process.execPath} ${BIN} run ${codex.join(" ")}`,
    ].join("\n");
    const result = await runProcess("unshare", ["-m", "--propagation", "private", "sh", "-c", script], { env: env!, cwd: work });
    expect(result.stderr).toContain(
      "⚠ /etc/codex/managed_config.toml sets model_provider: Codex sends its requests to that provider instead of the gateway. It is your administrator's managed configuration: ask them, or run Codex without the gateway.",
    );
    expect(elsewhere.received.some((request) => request.path === "/v1/responses")).toBe(true);
    expect(gatewayLog()).not.toContain("POST /v1/responses");
  }, 150_000);
});

describe("Gemini CLI's settings", () => {
  it.skipIf(!hasTool("gemini"))("the user's selectedType and a .env base URL lose to the gateway's system settings and environment: no warning, and the request reaches the gateway", async () => {
    const { home, run, elsewhere, gatewayLog } = await setUp();
    writeJson(join(home, ".gemini", "settings.json"), { security: { auth: { selectedType: "oauth-personal" } } });
    writeFileSync(join(home, ".gemini", ".env"), `GOOGLE_GEMINI_BASE_URL=${elsewhere.url}\n`);
    const result = await run(["gemini", "-m", "gemini-2.5-pro", "-p", "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("⚠ ");
    expect(result.stdout).toContain("hi");
    expect(gatewayLog()).toMatch(/POST \/gemini\/v1beta\/models\/gemini-2\.5-pro:streamGenerateContent\S* gemini-2\.5-pro 200/);
    expect(elsewhere.received).toEqual([]);
  }, 150_000);
});
