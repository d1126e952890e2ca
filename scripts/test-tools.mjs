#!/usr/bin/env node
// Installs one set of test/tools.json for the tool tests (scripts/tool-sets.mjs) and prints the shell assignments
// .ci/run evaluates: GATEWAY_TEST_TOOLS (where the tests find the tools) and GATEWAY_TEST_NODE_BIN (the folder of
// that Node, to put first on PATH).
// Usage: node scripts/test-tools.mjs <set>
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeBinOf, toolsDirOf } from "./tool-sets.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { sets } = JSON.parse(readFileSync(join(root, "test", "tools.json"), "utf8"));
const name = process.argv[2];
const set = sets[name];
if (!set) {
  console.error(`usage: node scripts/test-tools.mjs <${Object.keys(sets).join("|")}>`);
  process.exit(2);
}

// The pinned set lives where the tests look by default, so `npm test` on a developer's machine finds it.
const dir = name === "pinned" ? (process.env.GATEWAY_TEST_TOOLS ?? join(homedir(), ".cache", "gateway-test-tools")) : undefined;
const quote = (value) => `'${value.replace(/'/g, `'\\''`)}'`;
console.log(`GATEWAY_TEST_TOOLS=${quote(toolsDirOf(name, set, dir))}`);
console.log(`GATEWAY_TEST_NODE_BIN=${quote(nodeBinOf(set))}`);
