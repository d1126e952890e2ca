import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, spawnCli } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";

/**
 * Issue 52: a cold `--version`, `env` and `status` load only what they need. Each runs as a real child whose every
 * loaded module is written to a file (`helpers/module-log.mjs`).
 */

const MODULE_LOG = fileURLToPath(new URL("./helpers/module-log.mjs", import.meta.url));

/** Runs the command; resolves with its exit code, stdout and the modules it loaded. */
async function runLogged(args: string[], config: Record<string, unknown>) {
  const log = join(mkdtempSync(join(tmpdir(), "gateway-modules-")), "modules.txt");
  writeFileSync(log, "");
  const child = spawnCli(args, cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(config), GATEWAY_TEST_MODULE_LOG: log }), ["--import", MODULE_LOG]);
  child.stdin!.end();
  const [code] = (await once(child, "exit")) as [number];
  const modules = [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))];
  const packages = [...new Set(modules.flatMap((module) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module)?.[1] ?? []))].sort();
  return { code, stdout: child.output().stdout, modules, packages };
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
});
