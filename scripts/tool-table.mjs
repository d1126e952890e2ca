#!/usr/bin/env node
// The README's compatibility table, from the results the tool tests wrote (one JSON line per test: tool, version,
// node, route, upstream, passed; see reportToolRun in test/helpers/tools.ts). Prints it; with --write, also puts it
// in README.md between its tool-table markers. Never written by hand: run .ci/run (or the tool tests with
// GATEWAY_TEST_RESULTS set), then `node scripts/tool-table.mjs <results> --write`.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [file, flag] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/tool-table.mjs <results.jsonl> [--write]");
  process.exit(2);
}
const runs = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
if (runs.length === 0) throw new Error(`${file} holds no results: did the tool tests run?`);

const NAMES = { claude: "Claude Code", codex: "Codex", gemini: "Gemini CLI", qwen: "Qwen Code" };
const rows = new Map();
for (const run of runs) {
  const key = `${run.tool} ${run.version} ${run.node}`;
  if (!rows.has(key)) rows.set(key, { ...run, native: [], translated: [] });
  rows.get(key)[run.route].push(run);
}

/** `✓ 3 tests (chat)`, `✗ 1 of 3 failed (chat)`, or `not run`. */
function cell(list) {
  if (list.length === 0) return "not run";
  const upstreams = [...new Set(list.map((run) => run.upstream))].join(", ");
  const failed = list.filter((run) => !run.passed).length;
  const tests = `${list.length} test${list.length === 1 ? "" : "s"}`;
  return failed === 0 ? `✓ ${tests} (${upstreams})` : `✗ ${failed} of ${tests} failed (${upstreams})`;
}

const sorted = [...rows.values()].sort((a, b) => a.tool.localeCompare(b.tool) || a.node.localeCompare(b.node, undefined, { numeric: true }));
const day = statSync(file).mtime.toISOString().slice(0, 10);
const table = [
  "| tool | version | Node | native | translated |",
  "|---|---|---|---|---|",
  ...sorted.map((row) => `| ${NAMES[row.tool] ?? row.tool} | ${row.version} | ${row.node.replace(/^v/, "")} | ${cell(row.native)} | ${cell(row.translated)} |`),
  "",
  `Written by \`scripts/tool-table.mjs\` from the tool tests' run of ${day}; the upstream format each ran on is in brackets.`,
].join("\n");
console.log(table);

if (flag === "--write") {
  const readme = join(dirname(fileURLToPath(import.meta.url)), "..", "README.md");
  const text = readFileSync(readme, "utf8");
  const [open, close] = ["<!-- tool-table -->", "<!-- /tool-table -->"];
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`README.md has no ${open} ... ${close} markers`);
  writeFileSync(readme, `${text.slice(0, start + open.length)}\n${table}\n${text.slice(end)}`);
}
