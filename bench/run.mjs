// npm run bench [-- --quick] [-- --json] [-- --capture]
// Starts a fast fake upstream, minimal node:http + undici proxies (the floor, and the previous floor as a reference)
// and gateways, each as its own process, and measures them side by side: throughput and CPU per request under load
// (processes of each taking turns, ratios of their means), translation on a chat-only upstream against the floor's
// passthrough and claude-code-router, several upstreams against one, chunk timing, memory at idle and after load,
// open streams at scale and a burst of new connections, what metrics, OTLP off and the WebSocket cost a passthrough
// request (`feature-cost.mjs`, also run alone), and cold start.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ALIAS, LIST_LAGS, TRANSLATED_MODEL, oneUpstream, severalUpstreams } from "./configs.mjs";
import { coldStart } from "./cold-start.mjs";
import { featureCost } from "./feature-cost.mjs";
import { conversationTargets, longConversations } from "./long-conversations.mjs";
import { oneConnection } from "./one-connection.mjs";
import { startPeer } from "./peer.mjs";
import { generator, runLoad } from "./load.mjs";
import { cpuMs, finish, rssMb, startProcess } from "./processes.mjs";
import { render } from "./render.mjs";
import { requestFor } from "./requests.mjs";
import { chunkTiming, openStreams, percentile } from "./streams.mjs";

const quick = process.argv.includes("--quick");
const asJson = process.argv.includes("--json");
// The gateway with body capture on (`gateway start --capture`), to measure what keeping bodies costs.
const capture = process.argv.includes("--capture");
// Quick mode keeps every scenario but measures each briefly, once.
const SECONDS = quick ? 2 : 10;
// Load before each measured window, not measured: see `measure`.
const WARM_SECONDS = quick ? 1 : 3;
// Processes of the floor and of each gateway, measured in turn: two processes of the same program differ by up to a
// quarter in CPU per request for their whole life (four floor processes measured 83, 87, 104 and 106 µs a request,
// each the same again a round later), so one process each would make the ratio a draw between two of them.
const INSTANCES = quick ? 1 : 3;
const TIMING_RUNS = quick ? 4 : 16;
// Long conversations: requests per target, size and phase (issue 43 asks for the p50 of 25).
const CONVERSATION_RUNS = quick ? 3 : 25;
// One connection: request pairs per case (the p99 of 2,000 is its 20th slowest).
const ONE_CONNECTION_RUNS = quick ? 200 : 2_000;
const UPSTREAM_KEY = "sk-bench-upstream";
const LOCAL_KEY = "gw-bench-local";
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const say = (text) => asJson || process.stderr.write(`${text}\n`);

// Open file descriptors a process may have here (a proxy needs two per stream: its client's and its upstream's).
const FD_LIMIT = Number(spawnSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).stdout.trim()) || 1024;
const MOST_STREAMS = Math.min(10_000, Math.floor((FD_LIMIT - 200) / 2 / 100) * 100);
// Open streams: 15 chunks 1 s apart, starts spread over count / 2,000 s (2,000 new streams a second, 1 s at least).
const SCALE_COUNTS = quick ? [200, 1_000] : [1_000, 5_000, MOST_STREAMS];
const scaleShape = (count) => ({ count, delayMs: 1_000, chunks: quick ? 5 : 15, rampMs: Math.max(1_000, count / 2) });
// A burst: 2,000 new connections within one second, each a stream of 10 chunks 200 ms apart.
const BURST = { count: quick ? 500 : 2_000, delayMs: 200, chunks: 10, rampMs: 1_000 };
// The settle time the goal names: RSS 10 s after a load run, against idle.
const SETTLE_MS = quick ? 2_000 : 10_000;

// Passthrough: every target serves these (the gateway with one upstream, as most users run it).
const SCENARIOS = [
  { label: "chat non-stream", family: "chat", stream: false, connections: 50 },
  { label: "messages non-stream", family: "messages", stream: false, connections: 50 },
  { label: "gemini non-stream", family: "gemini", stream: false, connections: 50 },
  { label: "chat stream, 20 chunks", family: "chat", stream: true, connections: 50 },
  { label: "messages stream, 20 chunks", family: "messages", stream: true, connections: 50 },
  { label: "gemini stream, 20 chunks", family: "gemini", stream: true, connections: 50 },
  { label: "chat stream, 4 tool calls in 40 pieces", family: "chat", stream: true, connections: 50, model: "tools" },
  { label: "chat non-stream, aliased model", family: "chat", stream: false, connections: 50, model: ALIAS, severalToo: true },
  { label: "chat non-stream, 1 connection", family: "chat", stream: false, connections: 1 },
];
// Translated on the chat-only upstream of the several-upstreams gateway, against the floor's passthrough of the
// same upstream reply (`reference`); the translating floor and claude-code-router translate messages -> chat only.
const TRANSLATED = [
  { label: "messages -> chat stream, 20 deltas", family: "messages", stream: true, reference: "chat stream, 20 chunks", peer: true },
  { label: "messages -> chat JSON", family: "messages", stream: false, reference: "chat non-stream", peer: true },
  { label: "responses -> chat stream, 20 deltas", family: "responses", stream: true, reference: "chat stream, 20 chunks" },
  { label: "gemini -> chat stream, 20 deltas", family: "gemini", stream: true, reference: "chat stream, 20 chunks" },
  { label: "messages -> chat stream, 4 tool calls in 40 pieces", family: "messages", stream: true, model: "tools", reference: "chat stream, 4 tool calls in 40 pieces", peer: true },
].map((s) => ({ connections: 50, model: TRANSLATED_MODEL, ...s }));

// Each window measures a warm process: the unmeasured load before it takes the first scenario's JIT warm-up, and a
// heap a target gave back while it waited 20 s or more for its turn (the gateway 1 s into any idle spell, the floor
// whenever V8's memory reducer gets to it, if at all). The first seconds of a burst would otherwise
// measure the heap growing again (6-12% fewer requests over a 6 s window), which the README reports on its own.
async function measure(target, scenario) {
  const request = target.name === "ccr" ? peerRequest(scenario, target.key) : requestFor(scenario, target.key);
  await runLoad(`${target.url}${request.path}`, request, scenario.connections, WARM_SECONDS);
  const before = cpuMs(target.pid);
  const result = await runLoad(`${target.url}${request.path}`, request, scenario.connections, SECONDS);
  const cpu = cpuMs(target.pid) - before;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}, ${scenario.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { ...result, cpuMs: cpu, cpuUsPerReq: (cpu * 1000) / result.requests };
}

/** A messages request as claude-code-router takes it: at `/v1/messages`, the upstream model as a "provider,model" id. */
function peerRequest(scenario, key) {
  const request = requestFor({ ...scenario, model: `bench,${scenario.model}` }, key);
  return { ...request, path: request.path.replace(/^\/anthropic/, "") };
}

async function startGateway(name, instance, config) {
  const dir = join(scratch, `${name}-${instance}`);
  mkdirSync(join(dir, "config"), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, "config", "config.json"), JSON.stringify(config));
  const env = { GATEWAY_API_KEY: UPSTREAM_KEY, BENCH_UPSTREAM_KEY: UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, GATEWAY_CONFIG_DIR: join(dir, "config"), GATEWAY_STATE_DIR: join(dir, "state"), NO_COLOR: "1" };
  const args = [here("../bin/gateway.js"), "start", "--port", "0", "--quiet", ...(capture ? ["--capture"] : [])];
  return { name, instance, key: LOCAL_KEY, env, ...(await startProcess(args, env, /listening on http:\/\/127\.0\.0\.1:(\d+)/)) };
}

async function startTargets() {
  const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  const floorEnv = { BENCH_UPSTREAM_URL: upstream.url, BENCH_UPSTREAM_KEY: UPSTREAM_KEY };
  const targets = [{ name: "direct", instance: 1, ...upstream, key: UPSTREAM_KEY }];
  for (let instance = 1; instance <= INSTANCES; instance++) {
    targets.push({ name: "floor", instance, key: LOCAL_KEY, ...(await startProcess([here("floor-proxy.mjs")], floorEnv, /port (\d+)/)) });
    targets.push(await startGateway("gateway", instance, oneUpstream(upstream.url)));
    targets.push(await startGateway("several", instance, severalUpstreams(upstream.url)));
  }
  targets.push({ name: "floor-request", instance: 1, key: LOCAL_KEY, ...(await startProcess([here("floor-request.mjs")], floorEnv, /port (\d+)/)) });
  targets.push({ name: "floor-translate", instance: 1, key: LOCAL_KEY, ...(await startProcess([here("translating-floor.mjs")], floorEnv, /port (\d+)/)) });
  const peer = await startPeer(upstream.url, UPSTREAM_KEY, LOCAL_KEY, scratch);
  if (peer) targets.push({ name: "ccr", instance: 1, key: LOCAL_KEY, ...peer });
  else say("claude-code-router is not installed (sh bench/setup.sh): its rows are left out");
  return { upstream, targets };
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** Per target name, the mean over its processes of each figure `of` gives (undefined: not measured); the processes' own as `each`. */
function perName(targets, of) {
  const out = {};
  for (const name of new Set(targets.map((t) => t.name))) {
    const each = targets.filter((t) => t.name === name).map(of).filter((v) => v !== undefined);
    if (each.length === 0) continue;
    const fields = typeof each[0] === "number" ? undefined : Object.keys(each[0]);
    out[name] = fields ? { ...Object.fromEntries(fields.map((field) => [field, mean(each.map((e) => e[field]))])), each } : mean(each);
  }
  return out;
}

/** Runs `scenarios` on `names`' processes, taking turns (floor 1, gateway 1, floor 2, ...); the last window of each process is followed by its memory readings. */
async function loadPhase(targets, scenarios, namesOf, memory) {
  const load = {};
  for (const scenario of scenarios) {
    const measured = new Map();
    const turn = targets.filter((t) => namesOf(scenario).includes(t.name)).sort((a, b) => a.instance - b.instance);
    for (const target of turn) {
      say(`${scenario.label}: ${target.name} ${target.instance} ...`);
      measured.set(target, await measure(target, scenario));
      memory?.(target, scenario);
    }
    load[scenario.label] = perName(turn, (t) => measured.get(t));
  }
  return load;
}

/** Goal 3's cases: the gateway's passthrough and its translation to the chat-only upstream, against the floor's passthrough of the same reply. */
function oneConnectionCases(first) {
  const floor = (stream) => ({ target: first("floor"), request: requestFor({ family: "chat", stream }, LOCAL_KEY) });
  const passthrough = (stream) => ({ target: first("gateway"), request: requestFor({ family: "chat", stream }, LOCAL_KEY) });
  const translated = (stream) => ({ target: first("several"), request: requestFor({ family: "messages", stream, model: TRANSLATED_MODEL }, LOCAL_KEY) });
  return [
    { label: "passthrough JSON", firstByte: false, floor: floor(false), gateway: passthrough(false) },
    { label: "passthrough stream, first byte", firstByte: true, floor: floor(true), gateway: passthrough(true) },
    { label: "messages -> chat JSON", firstByte: false, floor: floor(false), gateway: translated(false) },
    { label: "messages -> chat stream, first byte", firstByte: true, floor: floor(true), gateway: translated(true) },
  ];
}

/** Median time of `runs` model-list requests (the union over every upstream), in ms. */
async function modelListMs(target, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(`${target.url}/v1/models`, { headers: { authorization: `Bearer ${target.key}` } });
    await res.text();
    if (res.status !== 200 || res.headers.get("x-gateway-partial")) throw new Error(`model list: ${res.status} ${res.headers.get("x-gateway-partial") ?? ""}`);
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

async function main() {
  const { targets } = await startTargets();
  await sleep(1_000);
  const measuredNames = ["direct", "floor", "gateway"];
  const idleRss = new Map(targets.map((t) => [t, rssMb(t.pid)]));
  const idle = perName(targets, (t) => idleRss.get(t));
  // Each process's memory right after its own last window, and SETTLE_MS later, while the others take turns.
  const afterLoad = new Map();
  const settling = [];
  const lastScenario = SCENARIOS.at(-1);
  const load = await loadPhase(
    targets,
    SCENARIOS,
    (s) => [...measuredNames, "floor-request", ...(s.severalToo ? ["several"] : [])],
    (target, scenario) => {
      if (scenario !== lastScenario) return;
      afterLoad.set(target, rssMb(target.pid));
      settling.push(sleep(SETTLE_MS).then(() => [target, rssMb(target.pid)]));
    },
  );
  const settled = new Map(await Promise.all(settling));
  const translated = await loadPhase(targets, TRANSLATED, (s) => ["several", ...(s.peer ? ["floor-translate", "ccr"] : [])]);
  const first = (name) => targets.find((t) => t.name === name && t.instance === 1);
  const keys = { upstreamKey: UPSTREAM_KEY, localKey: LOCAL_KEY, translatedModel: TRANSLATED_MODEL };
  // Idle as each process was before any load: the goal is the idle RSS plus 4x the bytes in flight.
  const conversationIdle = { passthrough: idleRss.get(first("gateway")), "messages -> chat": idleRss.get(first("several")) };
  const conversations = await longConversations(conversationTargets(first, keys), { runs: CONVERSATION_RUNS, warmups: quick ? 1 : 3, memory: Object.keys(conversationIdle), say });
  const oneConn = await oneConnection(oneConnectionCases(first), { runs: ONE_CONNECTION_RUNS, warmups: quick ? 20 : 200, say });
  say("model list union ...");
  const modelList = { ms: await modelListMs(first("several"), quick ? 5 : 21), lags: LIST_LAGS };
  // Chunk timing, open streams and the burst take the first process of each: they are about latency and memory.
  const timing = {};
  const slow = { query: "delay=20" };
  const passthroughPair = (key) => [requestFor({ family: "chat", stream: true, ...slow }, key), requestFor({ family: "messages", stream: true, ...slow }, key)];
  for (const name of measuredNames) {
    say(`chunk timing: ${name} ...`);
    timing[name] = await chunkTiming(first(name), passthroughPair(first(name).key), TIMING_RUNS);
  }
  say("chunk timing: translated ...");
  timing.translated = await chunkTiming(first("several"), [requestFor({ family: "messages", stream: true, model: "slow-20-20" }, LOCAL_KEY)], TIMING_RUNS);
  if (first("ccr")) timing.ccr = await chunkTiming(first("ccr"), [peerRequest({ family: "messages", stream: true, model: "slow-20-20" }, LOCAL_KEY)], TIMING_RUNS);
  // Open streams: half chat, half messages; through the several-upstreams gateway the messages half is translated.
  const streamRequests = (target, shape) => {
    const model = `slow-${shape.delayMs}-${shape.chunks}`;
    return [requestFor({ family: "chat", stream: true, model }, target.key), requestFor({ family: "messages", stream: true, model }, target.key)];
  };
  const scaleTargets = [first("direct"), first("floor"), first("several")];
  const scale = [];
  for (const count of SCALE_COUNTS) {
    const row = { shape: scaleShape(count) };
    for (const target of scaleTargets) {
      say(`${count} open streams: ${target.name} ...`);
      row[target.name] = await openStreams(target, streamRequests(target, row.shape), row.shape);
      await sleep(2_000);
    }
    scale.push(row);
  }
  const burst = { shape: BURST };
  for (const target of scaleTargets) {
    say(`burst of ${BURST.count} streams: ${target.name} ...`);
    burst[target.name] = await openStreams(target, streamRequests(target, BURST), BURST);
    await sleep(2_000);
  }
  // Goal 4's "the features of this round cost a passthrough request nothing": gateways of their own, in turn.
  const features = await featureCost(quick ? { seconds: 2, rounds: 1, instances: 1, say } : { seconds: 8, rounds: 2, instances: 2, say });
  say("cold start ...");
  const alone = { ...first("gateway").env, GATEWAY_STATE_DIR: join(scratch, "alone-state") };
  const cold = await coldStart(first("gateway").env, alone, 18_000 + Math.floor(Math.random() * 1000), quick ? 6 : 20);
  return {
    machine: `${cpus().length} cores, ${cpus()[0]?.model ?? "?"}, Node ${process.versions.node}`,
    generator,
    quick,
    capture,
    seconds: SECONDS,
    warmSeconds: WARM_SECONDS,
    instances: INSTANCES,
    fdLimit: FD_LIMIT,
    scenarios: SCENARIOS.map((s) => s.label),
    translatedScenarios: TRANSLATED.map((s) => ({ label: s.label, reference: s.reference })),
    load,
    translated,
    modelList,
    memory: { idle, afterLoad: perName(targets, (t) => afterLoad.get(t)), settled: perName(targets, (t) => settled.get(t)) },
    timing,
    scale,
    burst,
    featureCost: features,
    cold,
    conversations: { results: conversations, idleRssMb: conversationIdle, runs: CONVERSATION_RUNS },
    oneConnection: { results: oneConn, runs: ONE_CONNECTION_RUNS },
  };
}

finish(main(), (report) => (asJson ? JSON.stringify(report, null, 2) : render(report)), scratch);
