// npm run bench [-- --quick] [-- --json] [-- --capture]
// Starts a fast fake upstream, minimal node:http + undici proxies (the floor) and gateways, each as its own process,
// and measures them side by side: throughput and CPU per request under load (floor and gateway processes taking
// turns, ratios of their means), chunk timing, memory at idle and after load, open streams at scale, and cold start.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { coldStart } from "./cold-start.mjs";
import { generator, runLoad } from "./load.mjs";
import { cpuMs, rssMb, startProcess, stopAll } from "./processes.mjs";
import { render } from "./render.mjs";
import { requestFor } from "./requests.mjs";
import { chunkTiming, closeStreams, openStreamsRounds } from "./streams.mjs";

const quick = process.argv.includes("--quick");
const asJson = process.argv.includes("--json");
// The gateway with body capture on (`gateway start --capture`), to measure what keeping bodies costs.
const capture = process.argv.includes("--capture");
// Quick mode keeps every scenario but measures each briefly, once.
const SECONDS = quick ? 2 : 10;
// Load before each measured window, not measured: see `measure`.
const WARM_SECONDS = quick ? 1 : 3;
// Processes of the floor and of the gateway, measured in turn: two processes of the same program differ by up to a
// quarter in CPU per request for their whole life (four floor processes measured 83, 87, 104 and 106 µs a request,
// each the same again a round later), so one process each would make the ratio a draw between two of them.
const INSTANCES = quick ? 1 : 3;
const TIMING_RUNS = quick ? 4 : 16;
const STREAM_COUNTS = quick ? [10, 100] : [10, 100, 500, 1000];
const SCALE_ROUNDS = quick ? 1 : 5;
// Open streams: 40 chunks 100 ms apart (4 s each), starts spread over 1 s (1,000 new streams a second at most),
// so every count has 3 s with all its streams open.
const SCALE_SHAPE = { delayMs: 100, chunks: 40, rampMs: 1_000 };
// The settle time the goal names: RSS 10 s after a load run, against idle.
const SETTLE_MS = quick ? 2_000 : 10_000;
const UPSTREAM_KEY = "sk-bench-upstream";
const LOCAL_KEY = "gw-bench-local";
const ALIAS = "bench-alias";
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const say = (text) => asJson || process.stderr.write(`${text}\n`);

const SCENARIOS = [
  { label: "chat non-stream", family: "chat", stream: false, connections: 50 },
  { label: "messages non-stream", family: "messages", stream: false, connections: 50 },
  { label: "gemini non-stream", family: "gemini", stream: false, connections: 50 },
  { label: "chat stream, 20 chunks", family: "chat", stream: true, connections: 50 },
  { label: "messages stream, 20 chunks", family: "messages", stream: true, connections: 50 },
  { label: "gemini stream, 20 chunks", family: "gemini", stream: true, connections: 50 },
  { label: "chat non-stream, aliased model", family: "chat", stream: false, connections: 50, model: ALIAS },
  { label: "chat non-stream, 1 connection", family: "chat", stream: false, connections: 1 },
];

// Each window measures a warm process: the unmeasured load before it takes the first scenario's JIT warm-up, and a
// heap a target gave back while it waited 20 s or more for its turn (the gateway 1 s into any idle spell, the floor
// whenever V8's memory reducer gets to it, if at all). The first seconds of a burst would otherwise
// measure the heap growing again (6-12% fewer requests over a 6 s window), which the README reports on its own.
async function measure(target, scenario) {
  const request = requestFor(scenario, target.key);
  await runLoad(`${target.url}${request.path}`, request, scenario.connections, WARM_SECONDS);
  const before = cpuMs(target.pid);
  const result = await runLoad(`${target.url}${request.path}`, request, scenario.connections, SECONDS);
  const cpu = cpuMs(target.pid) - before;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}, ${scenario.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { ...result, cpuMs: cpu, cpuUsPerReq: (cpu * 1000) / result.requests };
}

async function startTargets() {
  const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  // The gateway as a user runs it: request log on, one model alias configured, its own directories.
  mkdirSync(join(scratch, "config"), { mode: 0o700 });
  writeFileSync(join(scratch, "config", "config.json"), JSON.stringify({ upstream: upstream.url, models: { [ALIAS]: "m" } }));
  const gatewayEnv = (instance) => ({ GATEWAY_API_KEY: UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, GATEWAY_CONFIG_DIR: join(scratch, "config"), GATEWAY_STATE_DIR: join(scratch, `state-${instance}`), NO_COLOR: "1" });
  const targets = [{ name: "direct", instance: 1, ...upstream, key: UPSTREAM_KEY }];
  for (let instance = 1; instance <= INSTANCES; instance++) {
    const floor = await startProcess([here("floor-proxy.mjs")], { BENCH_UPSTREAM_URL: upstream.url, BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
    const gateway = await startProcess([here("../bin/gateway.js"), "start", "--port", "0", "--quiet", ...(capture ? ["--capture"] : [])], gatewayEnv(instance), /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    targets.push({ name: "floor", instance, ...floor, key: LOCAL_KEY }, { name: "gateway", instance, ...gateway, key: LOCAL_KEY });
  }
  return { gatewayEnv: gatewayEnv(1), targets };
}

const NAMES = ["direct", "floor", "gateway"];
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** Per target name, the mean over its processes of each figure `of` gives; the processes' own figures as `each`. */
function perName(targets, of) {
  return Object.fromEntries(
    NAMES.map((name) => {
      const each = targets.filter((t) => t.name === name).map(of);
      const fields = typeof each[0] === "number" ? undefined : Object.keys(each[0]);
      return [name, fields ? { ...Object.fromEntries(fields.map((field) => [field, mean(each.map((e) => e[field]))])), each } : mean(each)];
    }),
  );
}

async function main() {
  const { targets, gatewayEnv } = await startTargets();
  await sleep(1_000);
  const idle = perName(targets, (t) => rssMb(t.pid));
  // load[scenario label][target name]: means over a name's processes, which take turns (floor 1, gateway 1, floor 2,
  // ...) in each scenario, so a slow minute of the machine does not fall on one name only.
  const load = {};
  const afterLoad = new Map();
  const settling = [];
  for (const [index, scenario] of SCENARIOS.entries()) {
    const measured = new Map();
    for (const target of targets) {
      say(`${scenario.label}: ${target.name} ${target.instance} ...`);
      measured.set(target, await measure(target, scenario));
      // Each process's memory right after its own last window, and SETTLE_MS later, while the others take turns.
      if (index === SCENARIOS.length - 1) {
        afterLoad.set(target, rssMb(target.pid));
        settling.push(sleep(SETTLE_MS).then(() => [target, rssMb(target.pid)]));
      }
    }
    load[scenario.label] = perName(targets, (t) => measured.get(t));
  }
  const settled = new Map(await Promise.all(settling));
  // Chunk timing and open streams take the first process of each: they are about latency and memory, not CPU.
  const first = targets.filter((t) => t.instance === 1);
  const timing = {};
  for (const target of first) {
    say(`chunk timing: ${target.name} ...`);
    timing[target.name] = await chunkTiming(target, TIMING_RUNS);
  }
  const scale = [];
  for (const count of STREAM_COUNTS) {
    say(`${count} open streams, ${SCALE_ROUNDS} round(s) ...`);
    scale.push(await openStreamsRounds(first, { ...SCALE_SHAPE, count }, SCALE_ROUNDS));
  }
  say("cold start ...");
  const cold = await coldStart(gatewayEnv, 18_000 + Math.floor(Math.random() * 1000), quick ? 6 : 20);
  return {
    machine: `${cpus().length} cores, ${cpus()[0]?.model ?? "?"}, Node ${process.versions.node}`,
    generator,
    quick,
    capture,
    seconds: SECONDS,
    warmSeconds: WARM_SECONDS,
    instances: INSTANCES,
    scenarios: SCENARIOS.map((s) => s.label),
    load,
    memory: { idle, afterLoad: perName(targets, (t) => afterLoad.get(t)), settled: perName(targets, (t) => settled.get(t)) },
    timing,
    scale,
    scaleShape: SCALE_SHAPE,
    scaleRounds: SCALE_ROUNDS,
    cold,
  };
}

main()
  .then((report) => process.stdout.write(asJson ? `${JSON.stringify(report, null, 2)}\n` : `${render(report)}\n`))
  .catch((error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    closeStreams();
    stopAll();
    rmSync(scratch, { recursive: true, force: true });
  });
