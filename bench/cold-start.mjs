// What a user waits for before a command does anything: `node -e 0` as the floor, the quick commands, the time
// to read the config, and `gateway start` until its first /health. The one-off prompt (issue 43, goal 2): `gateway
// chat -m echo-1 hi` end to end, with no gateway running and with one of the same configuration running, each paired
// run for run with `node -e 0`; and `gateway start` to its first /health paired with a bare node:http server
// (`bare-server.mjs`) started and polled the same way.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { get } from "node:http";
import { fileURLToPath } from "node:url";
import { percentile } from "./streams.mjs";

const BIN = fileURLToPath(new URL("../bin/gateway.js", import.meta.url));
const BARE = fileURLToPath(new URL("bare-server.mjs", import.meta.url));
const CONFIG = fileURLToPath(new URL("../dist/config/index.js", import.meta.url));

/** User + system CPU ms of the children this process has waited for (`/proc/self/stat` cutime and cstime). */
function childrenCpuMs() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/** One run of `command args` to its exit: wall ms and CPU ms (10 ms ticks: a median over runs reads them). */
function run(command, args, env) {
  const [started, cpu] = [performance.now(), childrenCpuMs()];
  const r = spawnSync(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${r.status}: ${r.stderr}`);
  return { ms: performance.now() - started, cpuMs: childrenCpuMs() - cpu };
}

/**
 * Medians of `commands` (each `[command, args, env]`) run in turn, `runs` of each, so that a change in the machine's
 * load falls on all of them alike: `[{ ms, cpuMs }]` in their order.
 */
export function interleavedRuns(commands, runs) {
  const times = commands.map(() => []);
  for (let i = 0; i < runs; i++) commands.forEach(([command, args, env], side) => times[side].push(run(command, args, env)));
  return times.map((t) => ({ ms: percentile(t.map((r) => r.ms), 50), cpuMs: percentile(t.map((r) => r.cpuMs), 50) }));
}

/** `interleavedRuns` of `a` and `b`: `ratio` is b's wall time over a's, `addedMs` the difference, `cpuMs` / `baselineCpuMs` their CPU. */
export const pairedWith = (first, second) => ({ baseline: first.ms, ms: second.ms, ratio: second.ms / first.ms, addedMs: second.ms - first.ms, baselineCpuMs: first.cpuMs, cpuMs: second.cpuMs });

/** `a` and `b` run in turn (`interleavedRuns`), compared (`pairedWith`). */
export const pairedRuns = (a, b, runs) => pairedWith(...interleavedRuns([a, b], runs));

/** `node a` and `node b` paired (`pairedRuns`), both with `env`. */
const pairedMs = (a, b, env, runs) => pairedRuns([process.execPath, a, env], [process.execPath, b, env], runs);

/** 200 from /health, or false (nothing listening yet, or anything else). */
const healthy = (port) =>
  new Promise((resolve) => {
    get({ host: "127.0.0.1", port, path: "/health", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200));
    }).on("error", () => resolve(false));
  });

/** From spawning `node <args> --port <port>` to its first /health 200, polled as fast as the event loop turns. */
async function toHealthMs(args, env, port) {
  const started = performance.now();
  const child = spawn(process.execPath, [...args, "--port", String(port)], { env: { ...process.env, ...env }, stdio: "ignore" });
  while (!(await healthy(port))) await new Promise((resolve) => setImmediate(resolve));
  const elapsed = performance.now() - started;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return elapsed;
}

/**
 * Medians in ms. `env` points the gateway at the bench's own config and state directories, where the bench's
 * gateway runs; `aloneEnv` at the same config with a state directory of its own, where no gateway runs.
 */
export async function coldStart(env, aloneEnv, port, runs) {
  const configRead = `const m = await import(${JSON.stringify(`file://${CONFIG}`)}); m.loadConfig({ flags: {}, env: process.env });`;
  const chat = [BIN, "chat", "-m", "echo-1", "hi"];
  const starts = [[], []];
  for (let i = 0; i < Math.max(3, runs / 2); i++) {
    starts[0].push(await toHealthMs([BARE], env, port));
    starts[1].push(await toHealthMs([BIN, "start", "--quiet"], env, port));
  }
  const [bare, start] = starts.map((t) => percentile(t, 50));
  // The cold figures run in turn with `node -e 0`, as the paired ones do: measured one after another, each in a block
  // of its own, a drift of the machine's speed between blocks moved them by 30-40 ms on the 2-core VM.
  const cold = [["-e", "0"], ["--input-type=module", "-e", configRead], [BIN, "--version"], [BIN, "env"], [BIN, "status"]];
  const [nodeFloor, configReadMs, version, envMs, status] = interleavedRuns(cold.map((args) => [process.execPath, args, env]), runs).map((r) => r.ms);
  return {
    nodeFloor,
    configRead: configReadMs,
    version,
    env: envMs,
    status,
    startToHealth: { baseline: bare, ms: start, ratio: start / bare },
    chatAlone: pairedMs(["-e", "0"], chat, aloneEnv, runs),
    chatRunning: pairedMs(["-e", "0"], chat, env, runs),
  };
}
