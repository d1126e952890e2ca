// node bench/one-off.mjs [--runs <n>] [--json] (after `npm run build`)
// The one-off scenario of `npm run bench` on its own (issue 52, "Start only what a command needs"): the cold start
// figures, the one-off prompt alone and through a running gateway, `gateway start` to its first /health, and
// `gateway run claude -p hi` against Claude Code run by hand and against the least Node launcher of it, each paired
// with its baseline, and the goals.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { oneUpstream } from "./configs.mjs";
import { coldStart } from "./cold-start.mjs";
import { coldTable } from "./render.mjs";
import { oneOffGoalsTable } from "./one-off-goals.mjs";
import { finish, startProcess } from "./processes.mjs";
import { toolLaunch } from "./tool-launch.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "20" }, json: { type: "boolean", default: false } } });
const RUNS = Number(values.runs);
const UPSTREAM_KEY = "sk-bench-upstream";
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const say = (text) => values.json || process.stderr.write(`${text}\n`);

/** A gateway of `config` in a directory of its own, running; its environment as the one-off commands get it. */
async function startGateway(name, config) {
  const dir = join(scratch, name);
  mkdirSync(join(dir, "config"), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, "config", "config.json"), JSON.stringify(config));
  const env = { GATEWAY_API_KEY: UPSTREAM_KEY, GATEWAY_LOCAL_KEY: `gw-bench-${name}`, GATEWAY_CONFIG_DIR: join(dir, "config"), GATEWAY_STATE_DIR: join(dir, "state"), NO_COLOR: "1" };
  await startProcess([here("../bin/gateway.js"), "start", "--port", "0"], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  return { env, dir };
}

/**
 * How long a one-off `gateway chat` stays after printing its reply (ms, each run): what a person at the terminal waits
 * for after the answer. V8 compiling undici's WebAssembly again in the background kept it 0.2-0.7 s (issue 52).
 */
function replyToExit(env, runs) {
  const gap = join(scratch, "exit-gap.txt");
  return Array.from({ length: runs }, () => {
    execFileSync(process.execPath, ["--import", here("exit-gap.mjs"), here("../bin/gateway.js"), "chat", "-m", "echo-1", "hi"], { env: { ...process.env, ...env, GATEWAY_TEST_EXIT_GAP: gap }, stdio: ["ignore", "ignore", "inherit"] });
    return Number(readFileSync(gap, "utf8"));
  }).sort((a, b) => a - b);
}

async function main() {
  const loadBefore = loadavg();
  const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  const gateway = await startGateway("gateway", oneUpstream(upstream.url));
  say("cold start ...");
  const alone = { ...gateway.env, GATEWAY_STATE_DIR: join(gateway.dir, "alone-state") };
  const cold = await coldStart(gateway.env, alone, 18_000 + Math.floor(Math.random() * 1000), RUNS);
  say("one-off chat, reply to exit ...");
  mkdirSync(join(scratch, "empty-config"));
  cold.replyToExitMs = replyToExit({ ...alone, GATEWAY_CONFIG_DIR: join(scratch, "empty-config"), GATEWAY_STATE_DIR: join(scratch, "empty-state") }, RUNS);
  say("gateway run claude -p hi ...");
  // An empty config: the echo upstream answers Claude Code.
  const echo = await startGateway("echo", {});
  cold.toolLaunch = toolLaunch(echo.env, Math.max(5, RUNS / 2));
  return { machine: `${cpus().length} cores, ${cpus()[0]?.model ?? "?"}, Node ${process.versions.node}`, load: [loadBefore, loadavg()], runs: RUNS, cold };
}

const replyToExitLine = (gaps) =>
  `one-off gateway chat, its reply printed to its exit: p50 ${gaps[Math.floor(gaps.length / 2)].toFixed(1)} ms, max ${gaps.at(-1).toFixed(1)} ms`;

const averages = (load) => load.map((n) => n.toFixed(2)).join(" ");

finish(
  main(),
  (report) => {
    const head = `machine: ${report.machine}; ${report.runs} runs per figure; load average ${averages(report.load[0])} before, ${averages(report.load[1])} after`;
    return values.json ? JSON.stringify(report, null, 2) : [head, "", ...coldTable(report), "", ...oneOffGoalsTable(report.cold), "", replyToExitLine(report.cold.replyToExitMs)].join("\n");
  },
  scratch,
);
