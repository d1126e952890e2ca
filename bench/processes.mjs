// The processes a bench run measures: each target is its own Node process, read through /proc.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";

const children = [];

/** Starts `node <args>` and resolves once its stdout matches `portPattern` (the port is the first group). */
export function startProcess(args, env, portPattern) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(portPattern);
      if (match) resolve({ pid: child.pid, port: Number(match[1]), url: `http://127.0.0.1:${match[1]}` });
    });
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)));
  });
}

export function stopAll() {
  for (const child of children) child.kill("SIGKILL");
}

/** Writes the text `print` makes of what `run` resolves to, or why it failed; then stops every process started and removes `scratch`. */
export function finish(run, print, scratch) {
  return run
    .then((report) => process.stdout.write(`${print(report)}\n`))
    .catch((error) => {
      process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    })
    .finally(() => {
      stopAll();
      rmSync(scratch, { recursive: true, force: true });
    });
}

const TICKS_PER_SECOND = 100;
/** User + system CPU time the process has used so far, in ms. */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export function rssMb(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]) / 1024;
}

/** Peak RSS while `work` runs, sampled every 50 ms. */
export async function peakRssDuring(pid, work) {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  try {
    const result = await work();
    return { peak: Math.max(peak, rssMb(pid)), result };
  } finally {
    clearInterval(sampler);
  }
}

/** Starts the kernel's peak-RSS count of `pid` afresh from its current RSS (`clear_refs` 5, Linux 4.0 and later). */
export function resetPeakRss(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** The highest RSS of `pid` since it started or since `resetPeakRss`, in MB (`VmHWM`). */
export function peakRssMb(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+)/)[1]) / 1024;
}
