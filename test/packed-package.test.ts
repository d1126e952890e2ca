import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentUpstream } from "./helpers/agent-upstream.js";
import { BIN, runProcess } from "./helpers/cli.js";
import { freePort } from "./helpers/free-port.js";
import { hasTool, privateDir, TOOLS } from "./helpers/tools.js";

/**
 * The package as npm installs it, outside any clone: `npm pack`, then the README's Install section run as written
 * with the tarball in place of the name, in an empty folder with a fresh HOME, npm cache and global prefix. The
 * clone's `dist/` was built by the test command; nothing here reads the clone but the tarball.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const { name, version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };

/** The lines of the first ```sh block after `marker`, comments and blank lines left out. */
function block(marker: string): string[] {
  const at = readme.indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  const [, body] = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))!;
  return body!.replace(/\\\n\s*/g, "").split("\n").map((line) => line.replace(/\s+#\s.*$/, "").trim()).filter((line) => line !== "");
}

const dirs: string[] = [];
let tarball: string;
let packed: { path: string }[];
let home: string;
let work: string;
let env: NodeJS.ProcessEnv;
let port: number;

/** Runs one shell line the way a user types it, in the empty folder, with the fresh HOME and prefix. */
const sh = (line: string, extra: NodeJS.ProcessEnv = {}) => runProcess("sh", ["-c", line], { env: { ...env, ...extra }, cwd: work });

beforeAll(async () => {
  port = await freePort();
  const out = privateDir("pack-");
  home = privateDir("packed-home-");
  work = privateDir("packed-work-");
  dirs.push(out, home, work);
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], { cwd: ROOT, encoding: "utf8" });
  expect(pack.status, pack.stderr).toBe(0);
  const [result] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(out, result!.filename);
  packed = result!.files;
  const prefix = join(home, ".npm-global");
  // The machine's own npm configuration (its CA bundle, a proxy) stays, as it would on a laptop; the user's (in
  // HOME) starts empty. A private prefix moves npm's global config file with it, so it is named.
  const globalconfig = spawnSync("npm", ["config", "get", "globalconfig"], { encoding: "utf8" }).stdout.trim();
  const network = Object.fromEntries(Object.entries(process.env).filter(([key]) => /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|(https?|no)_proxy)$/i.test(key)));
  env = {
    ...network,
    npm_config_globalconfig: globalconfig,
    HOME: home,
    PATH: `${join(prefix, "bin")}:${join(TOOLS, "node_modules", ".bin")}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    npm_config_prefix: prefix,
    npm_config_update_notifier: "false",
    GATEWAY_PORT: String(port),
    NO_COLOR: "1",
  };
});

afterAll(async () => {
  // The clone's own CLI, with the same HOME, finds the gateway npx started even when the test failed before the
  // global install put `gateway` on PATH: a failed run must not leave a gateway behind.
  if (env) await runProcess(process.execPath, [BIN, "stop"], { env, cwd: work });
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("the packed package", () => {
  it("holds the built CLI, the dashboard, the README with the pages it links to and the LICENSE, and no source map, source or test", () => {
    const paths = packed.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(["bin/gateway.js", "dist/cli/index.js", "dist/ui/index.html", "dist/ui/app.js", "dist/ui/app.css", "README.md", "LICENSE", "package.json"]));
    // Every file the README and the pages it ships link to is in the package (pages, screenshots), so no link of the
    // installed manual points at nothing.
    const pages = ["README.md", ...paths.filter((path) => path.startsWith("docs/") && path.endsWith(".md"))];
    const linked = pages.flatMap((page) =>
      [...readFileSync(join(ROOT, page), "utf8").matchAll(/\]\(((?:\.\.\/|docs\/)?[\w./-]+\.(?:md|png))(?:#[\w-]*)?\)/g)].map((match) => posix.normalize(posix.join(posix.dirname(page), match[1]!))),
    );
    expect(linked.length).toBeGreaterThanOrEqual(20);
    expect(paths).toEqual(expect.arrayContaining([...new Set(linked)]));
    expect(paths.filter((path) => path.endsWith(".map") || /^(src|test|bench|ui|scripts)\//.test(path))).toEqual([]);
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
  });

  it("runs the README's Install section as written, the tarball in place of the name, then the Quick start on the installed command", async () => {
    const [tryIt, install] = block("## Install");
    expect(tryIt).toBe(`npx ${name} start --detach`);
    expect(install).toBe(`npm install -g ${name}`);
    // npx takes a tarball as --package, naming the command; `npx <name>` finds the command by the package's one bin.
    const npx = `npx --package=${tarball} gateway`;

    const started = await sh(tryIt!.replace(`npx ${name}`, npx));
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain(`✔ Gateway running in the background on http://127.0.0.1:${port} (pid `);
    const chat = await sh(`${npx} chat -m echo-1 hi`);
    expect(chat.stdout, chat.stderr).toBe("echo: hi\n");
    // A service must not run npx's cached copy, which npm may delete.
    const service = await sh(`${npx} service install`);
    expect(service.code).toBe(1);
    // npx itself may say first that it installs the package.
    expect(service.stderr).toMatch(/(^|\n)✖ The service would run the copy npx keeps in its cache \(\S+\/_npx\/\S+\/bin\/gateway\.js\), which npm may delete at any time\.\nℹ Install the package first \(npm install -g local-llm-gateway\), then run `gateway service install`\.\n$/);

    const page = await fetch(`http://127.0.0.1:${port}/ui/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const asset of [...html.matchAll(/(?:src|href)="([^":]+)"/g)].map((m) => m[1]!)) {
      const response = await fetch(new URL(asset, `http://127.0.0.1:${port}/ui/`));
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(1000);
    }
    const key = JSON.parse((await sh(`${npx} env --json`)).stdout).OPENAI_API_KEY as string;
    const summary = await fetch(`http://127.0.0.1:${port}/ui/api/summary`, { headers: { authorization: `Bearer ${key}` } });
    expect(summary.status).toBe(200);

    const installed = await sh(install!.replace(name, tarball));
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).not.toMatch(/npm warn|npm error/i);
    expect(realpathSync(join(home, ".npm-global", "bin", "gateway"))).toBe(join(home, ".npm-global", "lib", "node_modules", name, "bin", "gateway.js"));
    expect((await sh("gateway --version")).stdout).toBe(`${version}\n`);

    // The Quick start after its clone line: the installed command finds the gateway npx started, and stops it.
    const quick = block("## Quick start").slice(1);
    const rest = await sh(["set -e", ...quick].join("\n"));
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toContain(`ℹ A gateway is already running on http://127.0.0.1:${port}`);
    expect(rest.stdout).toContain("echo: hello\n");
    expect(rest.stderr).toMatch(/✔ Gateway \d+ stopped\./);
  }, 240_000);

  it.skipIf(!hasTool("claude"))("gateway run, installed from the tarball, takes Claude Code through a tool call on a real upstream", async () => {
    const upstream = await startAgentUpstream({ tool: { name: "Bash", args: (command) => ({ command, description: "Add two numbers" }) }, command: "expr 40 + 2", final: "Done." });
    try {
      const config = join(home, ".config", "gateway");
      mkdirSync(config, { recursive: true });
      writeFileSync(join(config, "config.json"), JSON.stringify({ upstream: "local", upstreams: { local: { url: upstream.url, key: "none" } } }));
      const run = await sh(`gateway run claude -p "Run the shell command and report its output." --model claude-sonnet-4-5 --allowedTools Bash`, { DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("Done. [tool said: 42");
      expect(upstream.moves).toContain("call");
    } finally {
      await sh("gateway stop");
      await upstream.close();
    }
  }, 180_000);
});
