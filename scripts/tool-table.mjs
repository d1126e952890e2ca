#!/usr/bin/env node
// The README's compatibility table, from the results the tool tests wrote (scripts/compat-table.mjs). Prints it;
// with --write, also puts it in README.md between its tool-table markers. Never written by hand: run .ci/run (or the
// tool tests with GATEWAY_TEST_RESULTS set), then `node scripts/tool-table.mjs <results> --write`.
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compatibilityTable, readResults, writeBetweenMarkers } from "./compat-table.mjs";

const [file, flag] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/tool-table.mjs <results.jsonl> [--write]");
  process.exit(2);
}
const day = statSync(file).mtime.toISOString().slice(0, 10);
const table = compatibilityTable(readResults(file), `Written by \`scripts/tool-table.mjs\` from the tool tests' run of ${day}; the upstream format each ran on is in brackets.`);
console.log(table);
if (flag === "--write") writeBetweenMarkers(join(dirname(fileURLToPath(import.meta.url)), "..", "README.md"), "tool-table", table);
