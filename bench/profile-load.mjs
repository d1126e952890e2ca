// node bench/profile-load.mjs [--load json|stream] [--seconds 10] [--model m] [--bin <bin/gateway.js>] [--out <dir>]
// (after `npm run build`)
// Issue 53 goal 3: where the gateway's own CPU per request goes under load. One gateway (the one-upstream config of
// the full run) under wrk, 50 connections, chat JSON passthrough or a chat stream of 20 chunks passed through without
// usage (the bench's), run with `node --cpu-prof` and `--trace-gc`: after a 3 s warm-up, `--seconds` measured, then
// SIGTERM so the profile is written. Prints the CPU per request (from /proc), the collections (count and time by
// kind) and the profile's top functions by self time; the `.cpuprofile` stays in `--out` for Chrome's DevTools.
// `--model` names a priced model (`gpt-4o-mini`) to see the price table's share: the fake answers any model.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { oneUpstream } from "./configs.mjs";
import { f } from "./format.mjs";
import { runLoad } from "./load.mjs";
import { cpuMs, startProcess, stopAll } from "./processes.mjs";
import { requestFor } from "./requests.mjs";

const { values } = parseArgs({
  options: { load: { type: "string", default: "json" }, seconds: { type: "string", default: "10" }, model: { type: "string", default: "m" }, bin: { type: "string" }, out: { type: "string" } },
});
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const KEY = "sk-bench-upstream";
const LOCAL = "gw-bench-local";
const out = values.out ?? mkdtempSync(join(tmpdir(), "gateway-profile-"));
const dir = mkdtempSync(join(tmpdir(), "gateway-profile-config-"));
mkdirSync(join(dir, "config"));
writeFileSync(join(dir, "config", "config.json"), JSON.stringify(oneUpstream((await startFake()).url)));

async function startFake() {
  return startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: KEY }, /port (\d+)/);
}

const env = { ...process.env, GATEWAY_API_KEY: KEY, GATEWAY_LOCAL_KEY: LOCAL, GATEWAY_CONFIG_DIR: join(dir, "config"), GATEWAY_STATE_DIR: join(dir, "state"), NO_COLOR: "1" };
const gateway = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${out}`, "--trace-gc", values.bin ?? here("../bin/gateway.js"), "start", "--port", "0", "--quiet"], { env, stdio: ["ignore", "pipe", "inherit"] });
let text = "";
gateway.stdout.on("data", (chunk) => (text += chunk));
while (!/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(text)) await once(gateway.stdout, "data");
const url = `http://127.0.0.1:${text.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/)[1]}`;
const load = { family: "chat", stream: values.load === "stream", model: values.model, connections: 50 };
const request = requestFor(load, LOCAL);
const load0 = loadavg();
await runLoad(`${url}${request.path}`, request, 50, 3);
const warmText = text.length;
const before = cpuMs(gateway.pid);
const result = await runLoad(`${url}${request.path}`, request, 50, Number(values.seconds));
const cpu = cpuMs(gateway.pid) - before;
const gcLines = text.slice(warmText).split("\n").filter((line) => /Scavenge|Mark-Compact|Mark-sweep/i.test(line));
gateway.kill("SIGTERM");
await once(gateway, "exit");
stopAll();

const gc = {};
for (const line of gcLines) {
  const kind = /Scavenge/.test(line) ? "scavenge" : "mark-compact";
  const ms = Number(line.match(/,\s*([\d.]+)\s*\/\s*[\d.]+\s*ms/)?.[1] ?? 0);
  gc[kind] ??= { count: 0, ms: 0 };
  gc[kind].count++;
  gc[kind].ms += ms;
}
const file = readdirSync(out).filter((name) => name.endsWith(".cpuprofile")).sort().at(-1);
const profile = JSON.parse(readFileSync(join(out, file), "utf8"));
const self = new Map();
const interval = (profile.endTime - profile.startTime) / profile.samples.length;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
for (const id of profile.samples) {
  const { callFrame } = nodes.get(id);
  const name = `${callFrame.functionName || "(anonymous)"} ${callFrame.url.split("/").slice(-2).join("/")}:${callFrame.lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + interval);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
// Inclusive time: each sample counts once for every distinct function on its stack.
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map();
for (const id of profile.samples) {
  const names = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) names.add(nodes.get(at).callFrame.functionName || "(anonymous)");
  for (const name of names) inclusive.set(name, (inclusive.get(name) ?? 0) + interval);
}
const requests = result.requests;
console.log(`load ${values.load}, model ${values.model}: ${result.requests} requests, ${f(result.rps)} req/s, CPU ${f((cpu * 1000) / requests)} µs/req (under the profiler); load average ${load0.map((l) => f(l, 2)).join(" ")}`);
for (const [kind, g] of Object.entries(gc)) console.log(`${kind}: ${g.count} (${f((g.count * 1000) / requests, 2)} per 1,000 requests), ${f(g.ms)} ms (${f((g.ms * 1000) / requests, 1)} µs/req)`);
console.log(`profile: ${join(out, file)} (the profile spans the warm-up too)`);
console.log("self time:");
for (const [name, us] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${f((us / total) * 100, 1)}%  ${name}`);
const busy = total - (self.get("(idle) :0") ?? 0);
console.log("inclusive, of the busy samples:");
for (const [name, us] of [...inclusive.entries()].filter(([name]) => !/^\(/.test(name)).sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(`${f((us / busy) * 100, 1)}%  ${name}`);
