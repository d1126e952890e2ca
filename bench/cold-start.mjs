// What a user waits for before a command does anything: `node -e 0` as the floor, the quick commands, the time
// to read the config, and `gateway start` until its first /health 200.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { probeHealth } from "../dist/running/probe-health.js";
import { percentile } from "./streams.mjs";

const BIN = fileURLToPath(new URL("../bin/gateway.js", import.meta.url));
const CONFIG = fileURLToPath(new URL("../dist/config/index.js", import.meta.url));

function medianMs(args, env, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const r = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: "ignore" });
    if (r.error) throw r.error;
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

async function startToHealthMs(env, port) {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, "start", "--port", String(port), "--quiet"], { env: { ...process.env, ...env }, stdio: "ignore" });
  // Polls as fast as the event loop turns: the figure is the first moment /health answers.
  while (!(await probeHealth(port))) await new Promise((resolve) => setImmediate(resolve));
  const elapsed = performance.now() - started;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return elapsed;
}

/** Medians in ms; `env` points the gateway at the bench's own config and state directories. */
export async function coldStart(env, port, runs) {
  const configRead = `const m = await import(${JSON.stringify(`file://${CONFIG}`)}); m.loadConfig({ flags: {}, env: process.env });`;
  const starts = [];
  for (let i = 0; i < Math.max(3, runs / 2); i++) starts.push(await startToHealthMs(env, port));
  return {
    nodeFloor: medianMs(["-e", "0"], env, runs),
    configRead: medianMs(["--input-type=module", "-e", configRead], env, runs),
    version: medianMs([BIN, "--version"], env, runs),
    env: medianMs([BIN, "env"], env, runs),
    status: medianMs([BIN, "status"], env, runs),
    startToHealth: percentile(starts, 50),
  };
}
