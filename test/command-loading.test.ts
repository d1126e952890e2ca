import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, spawnCli, waitForOutput } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { packagesLoaded, sourcesOf } from "./helpers/loaded-sources.js";

/**
 * Issue 52: a cold `--version`, `env`, `status`, a one-off `chat` and a plain `run` load only what they need. Each runs as a real child whose every
 * loaded module is written to a file (`helpers/module-log.mjs`).
 */

const MODULE_LOG = fileURLToPath(new URL("./helpers/module-log.mjs", import.meta.url));

/** Runs the command; resolves with its exit code, stdout and the modules it loaded. */
async function runLogged(args: string[], config: Record<string, unknown> | string) {
  const log = join(mkdtempSync(join(tmpdir(), "gateway-modules-")), "modules.txt");
  writeFileSync(log, "");
  const configDir = typeof config === "string" ? config : tempConfigDir(config);
  const child = spawnCli(args, cliEnv({ GATEWAY_CONFIG_DIR: configDir, GATEWAY_TEST_MODULE_LOG: log }), ["--import", MODULE_LOG]);
  child.stdin!.end();
  const [code] = (await once(child, "exit")) as [number];
  const modules = [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))];
  const packages = packagesLoaded(modules);
  const sources = [...new Set(modules.flatMap(sourcesOf))];
  return { code, stdout: child.output().stdout, modules, packages, sources };
}

const CONFIG = { upstream: "one", upstreams: { one: { url: "http://127.0.0.1:9", key: "none" } } };

describe("what a one-off command loads", () => {
  it("`--version` loads nothing of the command line: no package and no file of dist/", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    const shown = await runLogged(["--version"], CONFIG);
    expect([shown.code, shown.stdout]).toEqual([0, `${version}\n`]);
    expect(shown.packages).toEqual([]);
    expect(shown.modules.filter((module) => module.includes("/dist/"))).toEqual([]);
  });

  it("`env` and `status` of one upstream load neither jsonc-parser (a config that parses needs none) nor the table's string-width", async () => {
    for (const args of [["env"], ["status"]]) {
      const { packages } = await runLogged(args, CONFIG);
      expect(packages).toContain("commander");
      expect(packages.filter((name) => ["jsonc-parser", "string-width", "undici"].includes(name))).toEqual([]);
    }
  });

  it("a one-off `chat` through a running gateway of its configuration loads none of the request path, nor the keychain's key sources", async () => {
    const configDir = tempConfigDir();
    const gateway = spawnCli(["start", "--port", "0", "--quiet", "--no-request-log"], cliEnv({ GATEWAY_CONFIG_DIR: configDir }));
    try {
      await waitForOutput(gateway, /listening on http:\/\/127\.0\.0\.1:\d+/);
      const chat = await runLogged(["chat", "-m", "echo-1", "hi"], configDir);
      expect([chat.code, chat.stdout]).toEqual([0, "echo: hi\n"]);
      expect(chat.sources.filter((source) => /^src\/server\/|^src\/chat\/in-process|^src\/upstream\/upstream-set|^src\/cli\/(upstream-keys|in-process-chat)/.test(source))).toEqual([]);
      expect(chat.packages).not.toContain("undici");
    } finally {
      const exited = once(gateway, "exit");
      gateway.kill("SIGTERM");
      await exited;
    }
  });

  it("a plain `gateway run <tool>` through a running gateway loads no commander; an option of run's own is parsed by it", async () => {
    const configDir = tempConfigDir();
    const gateway = spawnCli(["start", "--port", "0", "--quiet", "--no-request-log"], cliEnv({ GATEWAY_CONFIG_DIR: configDir }));
    try {
      await waitForOutput(gateway, /listening on http:\/\/127\.0\.0\.1:\d+/);
      const tool = [process.execPath, "-e", "console.log(process.env.ANTHROPIC_BASE_URL)"];
      const plain = await runLogged(["run", ...tool], configDir);
      expect([plain.code, plain.stdout]).toEqual([0, expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\n$/)]);
      expect(plain.packages).not.toContain("commander");
      const offline = await runLogged(["run", "--offline", ...tool], configDir);
      expect([offline.code, offline.stdout]).toEqual([0, plain.stdout]);
      expect(offline.packages).toContain("commander");
    } finally {
      const exited = once(gateway, "exit");
      gateway.kill("SIGTERM");
      await exited;
    }
  });
});
