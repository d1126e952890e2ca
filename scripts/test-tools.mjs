#!/usr/bin/env node
// Installs one set of test/tools.json for the tool tests: its Node (the machine's when it is that version, else the
// npm registry's `node` package, whose platform package holds the binary) and its tools, each set in a directory of
// its own. Prints the shell assignments .ci/run evaluates: GATEWAY_TEST_TOOLS (where the tests find the tools) and
// GATEWAY_TEST_NODE_BIN (the folder of that Node, to put first on PATH). Nothing comes from outside the npm registry.
// Usage: node scripts/test-tools.mjs <set>
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { sets } = JSON.parse(readFileSync(join(root, "test", "tools.json"), "utf8"));
const name = process.argv[2];
const set = sets[name];
if (!set) {
  console.error(`usage: node scripts/test-tools.mjs <${Object.keys(sets).join("|")}>`);
  process.exit(2);
}
const cache = join(homedir(), ".cache");

/** Whether `version` (v20.19.2) is what `wanted` names: a major ("20") or an exact version ("24.21.0"). */
const fits = (version, wanted) => (wanted.includes(".") ? version === `v${wanted}` : version.startsWith(`v${wanted}.`));

/** Runs npm quietly into `prefix`, its output on stderr so that stdout holds only the assignments. */
function npmInstall(prefix, specs) {
  mkdirSync(prefix, { recursive: true });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", prefix, ...specs], { stdio: ["ignore", 2, 2] });
}

function nodeBin() {
  if (fits(process.version, set.node)) return dirname(process.execPath);
  const prefix = join(cache, `gateway-test-node-${set.node}`);
  const bin = join(prefix, "node_modules", ".bin");
  const installed = () => existsSync(join(bin, "node")) && fits(execFileSync(join(bin, "node"), ["--version"]).toString().trim(), set.node);
  if (!installed()) npmInstall(prefix, [`node@${set.node}`]);
  if (!installed()) throw new Error(`npm installed node@${set.node} into ${prefix}, but its node/bin/node is not that Node`);
  return bin;
}

function toolsDir() {
  // The pinned set lives where the tests look by default, so `npm test` on a developer's machine finds it.
  const dir = name === "pinned" ? (process.env.GATEWAY_TEST_TOOLS ?? join(cache, "gateway-test-tools")) : join(cache, `gateway-test-tools-${name}`);
  const version = (pkg) => {
    const file = join(dir, "node_modules", pkg, "package.json");
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined;
  };
  const specs = Object.entries(set.tools);
  if (specs.some(([pkg, wanted]) => version(pkg) !== wanted)) npmInstall(dir, specs.map(([pkg, wanted]) => `${pkg}@${wanted}`));
  return dir;
}

const quote = (value) => `'${value.replace(/'/g, `'\\''`)}'`;
console.log(`GATEWAY_TEST_TOOLS=${quote(toolsDir())}`);
console.log(`GATEWAY_TEST_NODE_BIN=${quote(nodeBin())}`);
