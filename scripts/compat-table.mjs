// The compatibility table as Markdown, from the results the tool tests wrote (one JSON line per test: tool, version,
// node, route, upstream, passed, and `feature` when the test proves one of FEATURES; see reportToolRun in
// test/helpers/tools.ts). Used by tool-table.mjs (CI's run, the README's table) and canary.mjs (the canary's rows).
import { readFileSync, writeFileSync } from "node:fs";

const NAMES = { claude: "Claude Code", codex: "Codex", gemini: "Gemini CLI", qwen: "Qwen Code" };

/** The capability columns, by the feature name a test reports (test/helpers/tools.ts `ToolFeature`). */
const FEATURES = [
  ["artifact-schema", "Artifact schema"],
  ["tool-search", "tool search"],
  ["catalog", "catalog"],
  ["websocket", "WebSocket"],
];

/** `✓ 3 tests (chat)`, `✗ 1 of 3 failed (chat)`, or `not run`. */
function cell(list) {
  if (list.length === 0) return "not run";
  const upstreams = [...new Set(list.map((run) => run.upstream))].join(", ");
  const failed = list.filter((run) => !run.passed).length;
  const tests = `${list.length} test${list.length === 1 ? "" : "s"}`;
  return failed === 0 ? `✓ ${tests} (${upstreams})` : `✗ ${failed} of ${tests} failed (${upstreams})`;
}

/** Reads a results file (JSON lines); fails when it holds none, which means the tool tests did not run. */
export function readResults(file) {
  const runs = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  if (runs.length === 0) throw new Error(`${file} holds no results: did the tool tests run?`);
  return runs;
}

/** One row per tool, version and Node: native and translated runs, then each capability's runs. */
export function compatibilityTable(runs, caption) {
  const rows = new Map();
  for (const run of runs) {
    const key = `${run.tool} ${run.version} ${run.node}`;
    if (!rows.has(key)) rows.set(key, { ...run, runs: [] });
    rows.get(key).runs.push(run);
  }
  const sorted = [...rows.values()].sort((a, b) => a.tool.localeCompare(b.tool) || a.node.localeCompare(b.node, undefined, { numeric: true }));
  const of = (row, test) => cell(row.runs.filter(test));
  return [
    `| tool | version | Node | native | translated | ${FEATURES.map(([, title]) => title).join(" | ")} |`,
    `|---|---|---|---|---|${FEATURES.map(() => "---|").join("")}`,
    ...sorted.map((row) =>
      [
        NAMES[row.tool] ?? row.tool,
        row.version,
        row.node.replace(/^v/, ""),
        of(row, (run) => run.route === "native"),
        of(row, (run) => run.route === "translated"),
        ...FEATURES.map(([feature]) => of(row, (run) => run.feature === feature)),
      ].join(" | "),
    ).map((line) => `| ${line} |`),
    "",
    caption,
  ].join("\n");
}

/** Puts `table` into `file` between `<!-- <marker> -->` and `<!-- /<marker> -->`. */
export function writeBetweenMarkers(file, marker, table) {
  const text = readFileSync(file, "utf8");
  const [open, close] = [`<!-- ${marker} -->`, `<!-- /${marker} -->`];
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${file} has no ${open} ... ${close} markers`);
  writeFileSync(file, `${text.slice(0, start + open.length)}\n${table}\n${text.slice(end)}`);
}
