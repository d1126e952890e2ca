// node bench/ab-builds.mjs passthrough|translated|ruled|responses [MB] [rounds], with A_BIN and B_BIN the bin/gateway.js of
// two builds (a copy of bin/, dist/ and package.json, with node_modules linked): the A/B of a change under long
// conversations. Two processes of each build and the fake alone take turns request by request; what each build adds
// is its p50 less the fake alone's, and its CPU per request is read from /proc. Then each process of each build
// serves 8 requests at once, 5 times, and its peak RSS over that (the kernel's `VmHWM`, reset before) against its RSS
// before (issue 53: what a build holds of the bodies in flight). `ruled`: translated, routed by a `minInputTokens` rule
// (issue 53: one hub per request). A build may also be a floor, to hold a build against the least a proxy can do:
// `floor:whole` and `floor:checking` (`floor-proxy.mjs` with `BENCH_FLOOR_BODY`: the body read whole, then sent; read
// whole and checked as the gateway checks it, then sent) for passthrough, `floor:translating` (the bare translator,
// `translating-floor.mjs`) for translated.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { TRANSLATED_MODEL, oneUpstream, severalUpstreams } from "./configs.mjs";
import { conversation } from "./conversations.mjs";
import { cpuMs, peakRssMb, resetPeakRss, rssMb, startProcess, stopAll } from "./processes.mjs";
import { auth, pathOf } from "./requests.mjs";
import { percentile } from "./streams.mjs";
const mode = process.argv[2] ?? "passthrough";
const MB = Number(process.argv[3] ?? 3);
const RUNS = Number(process.argv[4] ?? 40);
const KEY = "sk-bench-upstream";
const scratch = mkdtempSync(join(tmpdir(), "ab43-"));
const up = await startProcess([new URL("fake-upstream.mjs", import.meta.url).pathname], { BENCH_UPSTREAM_KEY: KEY }, /port (\d+)/);
const builds = { A: process.env.A_BIN, B: process.env.B_BIN ?? new URL("../bin/gateway.js", import.meta.url).pathname };
if (!builds.A) throw new Error("A_BIN: the bin/gateway.js of the build to compare with");
const targets = [{ name: "fake", ...up, key: KEY }];
const FLOORS = {
  "floor:whole": { file: "floor-proxy.mjs", env: { BENCH_FLOOR_BODY: "whole" } },
  "floor:checking": { file: "floor-proxy.mjs", env: { BENCH_FLOOR_BODY: "checked" } },
  "floor:translating": { file: "translating-floor.mjs", env: {} },
};
for (const inst of [1, 2]) for (const [name, bin] of Object.entries(builds)) {
  const dir = join(scratch, name + inst); mkdirSync(join(dir, "config"), { recursive: true });
  const config = mode === "passthrough" || mode === "responses" ? oneUpstream(up.url) : severalUpstreams(up.url);
  if (mode === "ruled") config.routes = [{ name: "long", when: { minInputTokens: 100_000 }, to: "chat-only" }];
  writeFileSync(join(dir, "config", "config.json"), JSON.stringify(config));
  const env = { BENCH_UPSTREAM_KEY: KEY, GATEWAY_API_KEY: KEY, GATEWAY_LOCAL_KEY: "gw-l", GATEWAY_CONFIG_DIR: join(dir, "config"), GATEWAY_STATE_DIR: join(dir, "state"), NO_COLOR: "1" };
  const floor = FLOORS[bin];
  const started = floor
    ? startProcess([new URL(floor.file, import.meta.url).pathname], { ...env, ...floor.env, BENCH_UPSTREAM_URL: up.url }, /port (\d+)/)
    : startProcess([bin, "start", "--port", "0", "--quiet"], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  targets.push({ name, inst, key: "gw-l", ...(await started) });
}
const conv = conversation(MB * 1024 * 1024);
const family = mode === "responses" ? "responses" : "messages";
const model = mode === "passthrough" ? "m" : TRANSLATED_MODEL;
const body = (t) => t.name === "fake" ? conv[family]("m") : conv[family](mode === "passthrough" ? "m" : model);
function send(t, agent = t.agent) {
  return new Promise((resolve, reject) => {
    const b = body(t); const s = performance.now();
    const r = request(`${t.url}${pathOf(family)}`, { method: "POST", agent, headers: { ...auth[family](t.key), "content-type": "application/json", "content-length": b.length } }, (res) => { res.resume(); res.on("end", () => res.statusCode === 200 ? resolve(performance.now() - s) : reject(new Error(t.name + " " + res.statusCode))); });
    r.on("error", reject); r.end(b);
  });
}
for (const t of targets) { t.agent = new Agent({ keepAlive: true, maxSockets: 1 }); t.times = []; for (let i = 0; i < 5; i++) await send(t); t.cpu0 = cpuMs(t.pid); }
for (let i = 0; i < RUNS; i++) for (const t of targets) t.times.push(await send(t));
for (const t of targets) t.cpu1 = cpuMs(t.pid);
const AT_ONCE = 8;
for (const t of targets.slice(1)) {
  t.rssBefore = rssMb(t.pid);
  const many = new Agent({ keepAlive: true, maxSockets: AT_ONCE });
  resetPeakRss(t.pid);
  for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: AT_ONCE }, () => send(t, many)));
  many.destroy();
  t.peakRss = peakRssMb(t.pid);
}
const by = (name) => targets.filter((t) => t.name === name);
const fake = percentile(by("fake")[0].times, 50);
const out = {};
for (const name of ["A", "B"]) {
  const ts = by(name); const times = ts.flatMap((t) => t.times);
  out[name] = { addedP50: percentile(times, 50) - fake, cpuMsPerReq: ts.reduce((a, t) => a + (t.cpu1 - t.cpu0), 0) / times.length, peakRss: ts.map((t) => `${t.peakRss.toFixed(0)} (before ${t.rssBefore.toFixed(0)})`).join(", ") };
}
console.log(`${mode} ${MB} MB, ${RUNS} rounds, 2 processes each; fake alone p50 ${fake.toFixed(1)} ms`);
for (const [n, r] of Object.entries(out)) console.log(`${n}: added p50 ${r.addedP50.toFixed(1)} ms, CPU ${r.cpuMsPerReq.toFixed(1)} ms/req; peak RSS MB with ${AT_ONCE} x ${MB} MB at once: ${r.peakRss}`);
console.log(`B/A added ${(out.B.addedP50 / out.A.addedP50).toFixed(2)}, CPU ${(out.B.cpuMsPerReq / out.A.cpuMsPerReq).toFixed(2)}`);
stopAll();
rmSync(scratch, { recursive: true, force: true });
process.exit(0);
