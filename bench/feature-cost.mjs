// node bench/feature-cost.mjs [--seconds 8] [--rounds 3] [--instances 2] [--a-bin <bin/gateway.js>] [--json] (after
// `npm run build`)
// Issue 53 goal 4: the features of round 5 cost a passthrough request nothing measurable. The same passthrough load
// (chat JSON and a chat stream, 50 connections, wrk) on gateways of one build that differ only by the feature:
// - `base`: never scraped, no OTLP endpoint, no WebSocket ever opened;
// - `scraped`: `/metrics` scraped once a second through every window of its, as a team's Prometheus does;
// - `otlp off`: an OTLP endpoint in the config, switched off by `OTEL_SDK_DISABLED=true` (nothing loads, SPEC 12);
// - `websocket`: one Responses WebSocket (Codex's transport) opened before the load and left open, unused.
// Each variant runs as `--instances` processes; every round measures each process in turn (so a busy machine
// weighs on all alike), and a variant's figure is the gateway CPU per request (from /proc) summed over its
// windows. With `--a-bin`, the A/B of two builds instead: `base` and `scraped` of the build `--a-bin` names (A) and
// of this one (B).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { oneUpstream } from "./configs.mjs";
import { f, ratio } from "./format.mjs";
import { generator, runLoad } from "./load.mjs";
import { cpuMs, startProcess } from "./processes.mjs";
import { requestFor } from "./requests.mjs";

const UPSTREAM_KEY = "sk-bench-upstream";
const LOCAL_KEY = "gw-bench-local";
const LOADS = [
  { label: "chat JSON", family: "chat", stream: false, connections: 50 },
  { label: "chat stream, 20 chunks", family: "chat", stream: true, connections: 50 },
];
/** The goal: each feature's CPU per request over the base's, at most this (issue 53: "nothing measurable"). */
export const FEATURE_COST_LIMIT = 1.03;
const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** Scrapes `/metrics` once a second until the returned stop is called. */
function scrapeEverySecond(target) {
  const scrape = () =>
    fetch(`${target.url}/metrics`, { headers: { authorization: `Bearer ${target.key}` } }).then(async (res) => {
      await res.text();
      if (res.status !== 200) throw new Error(`${target.name}: /metrics answered ${res.status}`);
    });
  let failed;
  const timer = setInterval(() => scrape().catch((error) => (failed = error)), 1_000);
  return async () => {
    clearInterval(timer);
    if (failed) throw failed;
  };
}

/** Opens a Responses WebSocket to `target` and resolves once it is open; it stays open, unused, till the run ends. */
function openSocket(target) {
  const socket = new WebSocket(`${target.url.replace("http:", "ws:")}/v1/responses`, { headers: { authorization: `Bearer ${target.key}` } });
  return new Promise((resolve, reject) => {
    socket.once("open", () => {
      // A socket that closes or fails before the run ends makes the variant a gateway without one: the run says so.
      socket.on("error", () => {});
      resolve(socket);
    });
    socket.once("error", reject);
    socket.once("unexpected-response", (_req, res) => reject(new Error(`${target.name}: the WebSocket upgrade answered ${res.statusCode}`)));
  });
}

/** The variants of one build, or of two (`aBin`): what each adds to the base gateway. */
function variants(aBin) {
  const thisBuild = here("../bin/gateway.js");
  const scraped = { during: scrapeEverySecond };
  if (aBin) return [{ name: "A base", bin: aBin }, { name: "B base", bin: thisBuild }, { name: "A scraped", bin: aBin, ...scraped }, { name: "B scraped", bin: thisBuild, ...scraped }];
  return [
    { name: "base", bin: thisBuild },
    { name: "scraped", bin: thisBuild, ...scraped },
    { name: "otlp off", bin: thisBuild, config: { telemetry: { otlp: { endpoint: "http://127.0.0.1:9" } } }, env: { OTEL_SDK_DISABLED: "true" } },
    { name: "websocket", bin: thisBuild, before: openSocket },
  ];
}

async function startGateway(scratch, upstream, variant, instance) {
  const dir = join(scratch, `${variant.name.replaceAll(" ", "-")}-${instance}`);
  mkdirSync(join(dir, "config"), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, "config", "config.json"), JSON.stringify({ ...oneUpstream(upstream.url), ...variant.config }));
  const env = { GATEWAY_API_KEY: UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, GATEWAY_CONFIG_DIR: join(dir, "config"), GATEWAY_STATE_DIR: join(dir, "state"), NO_COLOR: "1", ...variant.env };
  const started = await startProcess([variant.bin, "start", "--port", "0", "--quiet"], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  return { ...started, name: variant.name, instance, key: LOCAL_KEY, variant, windows: Object.fromEntries(LOADS.map((load) => [load.label, []])) };
}

/** One measured window of `load` on `target`, after a warm-up of its own; the feature's work (a scrape a second) runs through both. */
async function measure(target, load, seconds) {
  const request = requestFor(load, target.key);
  const url = `${target.url}${request.path}`;
  const stop = target.variant.during?.(target);
  try {
    await runLoad(url, request, load.connections, 2);
    const before = cpuMs(target.pid);
    const result = await runLoad(url, request, load.connections, seconds);
    const cpu = cpuMs(target.pid) - before;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name} ${target.instance}, ${load.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { requests: result.requests, cpuMs: cpu, rps: result.rps };
  } finally {
    await stop?.();
  }
}

/** Runs the scenario; each variant's figures per load: CPU µs a request and req/s over all its windows, and each process's CPU µs a request. */
export async function featureCost({ seconds = 8, rounds = 3, instances = 2, aBin, say = () => {} } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), "gateway-feature-cost-"));
  const targets = [];
  const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  try {
    for (let instance = 1; instance <= instances; instance++) for (const variant of variants(aBin)) targets.push(await startGateway(scratch, upstream, variant, instance));
    const sockets = [];
    for (const target of targets) if (target.variant.before) sockets.push(await target.variant.before(target));
    const loadBefore = loadavg();
    for (let round = 1; round <= rounds; round++) {
      for (const load of LOADS) {
        for (const target of targets) {
          say(`round ${round}, ${load.label}: ${target.name} ${target.instance} ...`);
          target.windows[load.label].push(await measure(target, load, seconds));
        }
      }
    }
    for (const socket of sockets) {
      if (socket.readyState !== WebSocket.OPEN) throw new Error("a WebSocket the run opened closed before its end");
      socket.terminate();
    }
    const results = {};
    for (const load of LOADS) {
      results[load.label] = {};
      for (const name of new Set(targets.map((t) => t.name))) {
        const mine = targets.filter((t) => t.name === name);
        const windows = mine.flatMap((t) => t.windows[load.label]);
        const sum = (field) => windows.reduce((a, w) => a + w[field], 0);
        const perProcess = mine.map((t) => (t.windows[load.label].reduce((a, w) => a + w.cpuMs, 0) * 1000) / t.windows[load.label].reduce((a, w) => a + w.requests, 0));
        results[load.label][name] = { cpuUsPerReq: (sum("cpuMs") * 1000) / sum("requests"), rps: sum("rps") / windows.length, perProcess };
      }
    }
    return { machine: `${cpus().length} cores, ${cpus()[0]?.model ?? "?"}, Node ${process.versions.node}`, generator, seconds, rounds, instances, ab: Boolean(aBin), loadBefore, loadAfter: loadavg(), results };
  } finally {
    // Its own processes only: `bench/run.mjs` runs this scenario among its own targets.
    for (const { pid } of [upstream, ...targets]) process.kill(pid, "SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The pairs a run compares: each feature against the base, or B against A with and without scrapes. */
const pairsOf = (report) =>
  report.ab
    ? [["B base", "A base"], ["B scraped", "A scraped"], ["A scraped", "A base"], ["B scraped", "B base"]]
    : [["scraped", "base"], ["otlp off", "base"], ["websocket", "base"]];

/** The scenario's table: per load and variant, CPU per request (each process's beside it) and req/s, and each pair's ratios. */
export function featureCostTable(report) {
  const lines = [
    `machine: ${report.machine}; ${report.generator}, ${report.instances} processes a variant, ${report.rounds} rounds of ${report.seconds} s windows; load average ${report.loadBefore.map((l) => f(l, 2)).join(" ")} before, ${report.loadAfter.map((l) => f(l, 2)).join(" ")} after`,
    "",
    "| load | variant | gateway CPU µs/req (each process) | req/s |",
    "|---|---|---|---|",
  ];
  for (const [load, byName] of Object.entries(report.results)) {
    for (const [name, r] of Object.entries(byName)) lines.push(`| ${load} | ${name} | ${f(r.cpuUsPerReq)} (${r.perProcess.map((v) => f(v)).join(", ")}) | ${f(r.rps)} |`);
  }
  lines.push("", "| load | pair | CPU per request | req/s |", "|---|---|---|---|");
  for (const [load, byName] of Object.entries(report.results)) {
    for (const [on, off] of pairsOf(report)) lines.push(`| ${load} | ${on} / ${off} | ${f(ratio(byName[on].cpuUsPerReq, byName[off].cpuUsPerReq), 3)}x | ${f(ratio(byName[on].rps, byName[off].rps), 3)}x |`);
  }
  return lines;
}

/** Goal 4's row of the goals table (`goals.mjs`): `[goal, measured, target, met]`. */
export function featureCostRow(report) {
  const each = Object.entries(report.results).flatMap(([load, byName]) => pairsOf(report).map(([on, off]) => ({ label: `${on}, ${load}`, cpu: ratio(byName[on].cpuUsPerReq, byName[off].cpuUsPerReq) })));
  return [
    "4. metrics scraped once a second, OTLP off, a WebSocket open: a passthrough request's CPU / the base gateway's",
    each.map((e) => `${e.label} ${f(e.cpu, 3)}x`).join("; "),
    `<= ${FEATURE_COST_LIMIT}x each`,
    each.every((e) => e.cpu <= FEATURE_COST_LIMIT),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { seconds: { type: "string", default: "8" }, rounds: { type: "string", default: "3" }, instances: { type: "string", default: "2" }, "a-bin": { type: "string" }, json: { type: "boolean", default: false } },
  });
  const say = (text) => values.json || process.stderr.write(`${text}\n`);
  featureCost({ seconds: Number(values.seconds), rounds: Number(values.rounds), instances: Number(values.instances), aBin: values["a-bin"], say })
    .then((report) => {
      if (values.json) return process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      const lines = featureCostTable(report);
      if (!report.ab) {
        const [goal, measured, target, met] = featureCostRow(report);
        lines.push("", "| goal (issue 53) | measured in this run | target | met |", "|---|---|---|---|", `| ${goal} | ${measured} | ${target} | ${met ? "met" : "**not met**"} |`);
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    })
    .catch((error) => {
      process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    });
}
