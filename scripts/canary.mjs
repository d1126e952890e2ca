#!/usr/bin/env node
// `npm run canary`: tomorrow's releases, tested today. Installs the npm registry's newest release of each tool of
// test/tools.json's newest set, on the newest Node of its major (scripts/tool-releases.mjs), into a folder of its
// own (~/.cache/gateway-test-tools-canary, scripts/tool-sets.mjs), runs the tool tests against them and prints a
// compatibility row per tool. Nothing is pinned: CI keeps test/tools.json's versions, so a release outside the
// project's control never blocks a merge. With --write, the rows go into README.md between its canary-table markers,
// with the date. Test files or name filters may follow (default: every tool test, `test/agents-`).
// Usage: npm run canary [-- [--write] [test files...]]
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compatibilityTable, readResults, writeBetweenMarkers } from "./compat-table.mjs";
import { newestReleases } from "./tool-releases.mjs";
import { nodeBinOf, toolsDirOf } from "./tool-sets.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const write = args.includes("--write");
const filters = args.filter((arg) => arg !== "--write");

const { sets } = JSON.parse(readFileSync(join(root, "test", "tools.json"), "utf8"));
const { set, changes, warnings } = newestReleases(sets.newest);
for (const warning of warnings) console.warn(warning);
console.error(`canary: ${Object.entries(set.tools).map(([pkg, version]) => `${pkg}@${version}`).join(", ")} on Node ${set.node}${changes.length ? ` (newer than the pins: ${changes.join(", ")})` : " (the newest pins)"}`);

const dir = toolsDirOf("canary", set);
const results = join(dir, "results.jsonl");
if (existsSync(results)) rmSync(results);
const run = spawnSync("sh", ["scripts/with-keyring.sh", "node", "node_modules/vitest/vitest.mjs", "run", ...(filters.length ? filters : ["test/agents-"])], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, GATEWAY_TEST_TOOLS: dir, GATEWAY_TEST_RESULTS: results, PATH: `${nodeBinOf(set)}:${process.env.PATH}` },
});

const day = new Date().toISOString().slice(0, 10);
const only = filters.length ? ` (only ${filters.join(", ")})` : "";
const table = compatibilityTable(readResults(results), `Written by \`npm run canary\`${only} on ${day}: the registry's newest releases that day, not pinned.`);
console.log(table);
if (write) writeBetweenMarkers(join(root, "README.md"), "canary-table", table);
process.exitCode = run.status ?? 1;
