import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cliEnv } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";

/**
 * Issue 52: on Node 22.1+, `bin/gateway.js` turns on Node's module compile cache, which Node keeps under the
 * temporary directory (never the install, which may be read-only). Run on a Node that has it: this one, the newest
 * tool set's (`GATEWAY_TEST_NODE_BIN`), or one `scripts/tool-sets.mjs` installed into the cache before. On a fresh
 * machine the suite's first run (Node 20) has none and skips it; .ci/run runs it again on the newest set's Node.
 */

function nodeWithCompileCache(): string | undefined {
  const candidates = [
    process.execPath,
    ...(process.env.GATEWAY_TEST_NODE_BIN ? [join(process.env.GATEWAY_TEST_NODE_BIN, "node")] : []),
    ...(existsSync(join(homedir(), ".cache")) ? readdirSync(join(homedir(), ".cache")) : [])
      .filter((name) => name.startsWith("gateway-test-node-"))
      .map((name) => join(homedir(), ".cache", name, "node_modules", ".bin", "node")),
  ];
  return candidates.find((node) => existsSync(node) && execFileSync(node, ["-p", "typeof require('node:module').enableCompileCache"]).toString().trim() === "function");
}

const NODE = nodeWithCompileCache();

/** The files of what an install runs (`bin/`, `dist/`), where a cache must never be written. */
const installFiles = () => ["bin", "dist"].reduce((count, dir) => count + readdirSync(join(BIN, "..", "..", dir), { recursive: true }).length, 0);

describe("the module compile cache", () => {
  it.skipIf(NODE === undefined)("a command's first run on Node 22.1+ fills node-compile-cache under the temporary directory, and the next reads it with the same output; the install gains no file", () => {
    const node = NODE!;
    const tmp = mkdtempSync(join(tmpdir(), "gateway-compile-cache-"));
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_LOCAL_KEY: "gw-compile-cache-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined });
    const before = installFiles();
    const first = execFileSync(node, [BIN, "env"], { env }).toString();
    const cache = join(tmp, "node-compile-cache");
    const entries = readdirSync(cache, { recursive: true }).length;
    expect(entries).toBeGreaterThan(0);
    expect(execFileSync(node, [BIN, "env"], { env }).toString()).toBe(first);
    expect(first).toContain("export OPENAI_BASE_URL='http://127.0.0.1:8484/v1'");
    expect(installFiles()).toBe(before);
  });
});
