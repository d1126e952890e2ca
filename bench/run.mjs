// npm run bench [-- --quick] [-- --json] [-- --capture]
// Starts a fast fake upstream, a minimal node:http + undici proxy (the floor) and the gateway, each as its own
// process, and measures them side by side in one run: throughput, latency, CPU per request of the serving
// process, chunk timing, memory. Ratios are gateway / floor.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const quick = process.argv.includes("--quick");
const asJson = process.argv.includes("--json");
// The gateway with body capture on (`gateway start --capture`), to measure what keeping bodies costs.
const capture = process.argv.includes("--capture");
// Quick mode keeps every scenario but measures each briefly, to stay under 30 s including the build.
const DURATION = quick ? 1 : 6;
const TIMING_RUNS = quick ? 3 : 15;
const SLOW_STREAMS = quick ? 200 : 500;
const SLOW_CHUNK_MS = quick ? 50 : 100;
const UPSTREAM_KEY = "sk-bench-upstream";
const LOCAL_KEY = "gw-bench-local";
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const children = [];
const scratch = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const say = (text) => asJson || process.stderr.write(`${text}\n`);

function startProcess(args, env, portPattern) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(portPattern);
      if (match) resolve({ pid: child.pid, url: `http://127.0.0.1:${match[1]}` });
    });
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)));
  });
}

const TICKS = 100;
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}
function rssMb(pid) {
  const kb = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
  return kb / 1024;
}

const bodies = {
  chat: (stream) => JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...(stream ? { stream: true } : {}) }),
  messages: (stream) => JSON.stringify({ model: "m", max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...(stream ? { stream: true } : {}) }),
};
const paths = { chat: "/v1/chat/completions", messages: "/anthropic/v1/messages" };
const headersFor = (family, key) =>
  family === "chat"
    ? { authorization: `Bearer ${key}`, "content-type": "application/json" }
    : { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" };

const fire = (target, family, stream, connections, length) =>
  autocannon({
    url: `${target.url}${paths[family]}`,
    method: "POST",
    headers: headersFor(family, target.key),
    body: bodies[family](stream),
    connections,
    ...length,
  });

// The first scenario would otherwise also measure each process's JIT warm-up.
const warmUp = (target) => Promise.all([fire(target, "chat", false, 50, { amount: 1000 }), fire(target, "messages", true, 50, { amount: 1000 })]);

async function load(target, family, stream, connections) {
  const before = cpuMs(target.pid);
  const result = await fire(target, family, stream, connections, { duration: DURATION });
  const cpu = cpuMs(target.pid) - before;
  const total = result.requests.total;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUsPerReq: total ? (cpu * 1000) / total : 0 };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
function timedStream(target, delay) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const times = [];
    const req = request(`${target.url}${paths.chat}?delay=${delay}`, { method: "POST", headers: headersFor("chat", target.key), agent }, (res) => {
      res.on("data", () => times.push(performance.now() - started));
      res.on("end", () => resolve(times));
    });
    req.on("error", reject);
    req.end(bodies.chat(true));
  });
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function chunkTiming(target) {
  await timedStream(target, 0);
  const firsts = [];
  const lateness = [];
  for (let run = 0; run < TIMING_RUNS; run++) {
    const times = await timedStream(target, 20);
    firsts.push(times[0]);
    // how late each chunk is against the upstream's 20 ms schedule, measured from the first one
    times.forEach((t, i) => lateness.push(t - times[0] - i * 20));
  }
  return { ttfbP50: percentile(firsts, 50), chunkLateP99: percentile(lateness, 99) };
}

async function slowStreams(target) {
  const baseline = rssMb(target.pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(target.pid))), 50);
  await Promise.all(Array.from({ length: SLOW_STREAMS }, () => timedStream(target, SLOW_CHUNK_MS)));
  clearInterval(sampler);
  return { rssOpenMb: peak, kbPerStream: ((peak - baseline) * 1024) / SLOW_STREAMS };
}

async function main() {
  const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  const floor = await startProcess([here("floor-proxy.mjs")], { BENCH_UPSTREAM_URL: upstream.url, BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  const gateway = await startProcess(
    [here("../bin/gateway.js"), "start", "--port", "0", "--upstream", upstream.url, "--quiet", ...(capture ? ["--capture"] : [])],
    // The request log stays on, as it is by default, in a directory of its own.
    { GATEWAY_API_KEY: UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, GATEWAY_CONFIG_DIR: scratch, GATEWAY_STATE_DIR: join(scratch, "state"), NO_COLOR: "1" },
    /listening on http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const targets = [
    { name: "direct", ...upstream, key: UPSTREAM_KEY },
    { name: "floor", ...floor, key: LOCAL_KEY },
    { name: "gateway", ...gateway, key: LOCAL_KEY },
  ];
  const idle = Object.fromEntries(targets.map((t) => [t.name, rssMb(t.pid)]));
  for (const target of targets) {
    say(`warming up: ${target.name} ...`);
    await warmUp(target);
  }
  const rows = [];
  const scenarios = [
    ["chat non-stream, 50 conns", "chat", false, 50],
    ["messages non-stream, 50 conns", "messages", false, 50],
    ["chat stream 20 chunks, 50 conns", "chat", true, 50],
    ["messages stream 20 chunks, 50 conns", "messages", true, 50],
    ["chat non-stream, 1 conn", "chat", false, 1],
  ];
  for (const [label, family, stream, connections] of scenarios) {
    const results = {};
    for (const target of targets) {
      say(`${label}: ${target.name} ...`);
      results[target.name] = await load(target, family, stream, connections);
    }
    rows.push({ label, results });
  }
  const afterLoad = Object.fromEntries(targets.map((t) => [t.name, rssMb(t.pid)]));
  const timing = {};
  for (const target of targets) {
    say(`chunk timing: ${target.name} ...`);
    timing[target.name] = await chunkTiming(target);
  }
  const slow = {};
  for (const target of targets.slice(1)) {
    say(`${SLOW_STREAMS} slow streams: ${target.name} ...`);
    slow[target.name] = await slowStreams(target);
  }
  return { machine: `${cpus().length} cores, ${cpus()[0]?.model ?? "?"}, Node ${process.versions.node}`, quick, idle, afterLoad, rows, timing, slow };
}

function render(report) {
  const r = (a, b) => (b ? (a / b).toFixed(2) : "-");
  const f = (n, d = 0) => (n === undefined ? "-" : n.toFixed(d));
  const lines = [`machine: ${report.machine}${report.quick ? " (quick mode)" : ""}${capture ? ", gateway with --capture" : ""}`, ""];
  lines.push("| scenario | figure | direct | floor | gateway | gateway/floor |", "|---|---|---|---|---|---|");
  for (const { label, results: x } of report.rows) {
    lines.push(`| ${label} | req/s | ${f(x.direct.rps)} | ${f(x.floor.rps)} | ${f(x.gateway.rps)} | ${r(x.gateway.rps, x.floor.rps)} |`);
    lines.push(`| | latency p50 / p99 ms | ${x.direct.p50} / ${x.direct.p99} | ${x.floor.p50} / ${x.floor.p99} | ${x.gateway.p50} / ${x.gateway.p99} | |`);
    lines.push(`| | CPU µs per request | ${f(x.direct.cpuUsPerReq)} | ${f(x.floor.cpuUsPerReq)} | ${f(x.gateway.cpuUsPerReq)} | ${r(x.gateway.cpuUsPerReq, x.floor.cpuUsPerReq)} |`);
  }
  const t = report.timing;
  lines.push(`| stream, 20 chunks 20 ms apart | TTFB p50 ms (added vs direct) | ${f(t.direct.ttfbP50, 2)} | ${f(t.floor.ttfbP50, 2)} (+${f(t.floor.ttfbP50 - t.direct.ttfbP50, 2)}) | ${f(t.gateway.ttfbP50, 2)} (+${f(t.gateway.ttfbP50 - t.direct.ttfbP50, 2)}) | |`);
  lines.push(`| | chunk lateness p99 ms (added vs direct) | ${f(t.direct.chunkLateP99, 2)} | ${f(t.floor.chunkLateP99, 2)} (+${f(t.floor.chunkLateP99 - t.direct.chunkLateP99, 2)}) | ${f(t.gateway.chunkLateP99, 2)} (+${f(t.gateway.chunkLateP99 - t.direct.chunkLateP99, 2)}) | |`);
  lines.push(`| memory | RSS idle MB | ${f(report.idle.direct, 1)} | ${f(report.idle.floor, 1)} | ${f(report.idle.gateway, 1)} | ${r(report.idle.gateway, report.idle.floor)} |`);
  lines.push(`| | RSS after load MB | ${f(report.afterLoad.direct, 1)} | ${f(report.afterLoad.floor, 1)} | ${f(report.afterLoad.gateway, 1)} | ${r(report.afterLoad.gateway, report.afterLoad.floor)} |`);
  const s = report.slow;
  lines.push(`| ${SLOW_STREAMS} open slow streams | RSS MB (KB per stream) | | ${f(s.floor.rssOpenMb, 1)} (${f(s.floor.kbPerStream, 1)}) | ${f(s.gateway.rssOpenMb, 1)} (${f(s.gateway.kbPerStream, 1)}) | ${r(s.gateway.rssOpenMb, s.floor.rssOpenMb)} |`);
  return lines.join("\n");
}

main()
  .then((report) => {
    process.stdout.write(asJson ? `${JSON.stringify(report, null, 2)}\n` : `${render(report)}\n`);
  })
  .catch((error) => {
    process.stderr.write(`bench failed: ${error.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    agent.destroy();
    for (const child of children) child.kill("SIGKILL");
    rmSync(scratch, { recursive: true, force: true });
  });
