// Streams with a slow upstream: when each chunk arrives against the upstream's schedule, and what many open
// streams cost the serving process.
import { Agent, request as httpRequest } from "node:http";
import { cpuMs, peakRssDuring } from "./processes.mjs";
import { requestFor } from "./requests.mjs";

const agent = new Agent({ keepAlive: true, maxSockets: 4096 });
export const closeStreams = () => agent.destroy();

/** Arrival times (ms from the request) of every chunk of one stream. */
function timedStream(target, family, delayMs) {
  const { path, headers, body } = requestFor({ family, stream: true, query: `delay=${delayMs}` }, target.key);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const times = [];
    const req = httpRequest(`${target.url}${path}`, { method: "POST", headers, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${target.name}: status ${res.statusCode}`));
      res.on("data", () => times.push(performance.now() - started));
      res.on("end", () => resolve(times));
    });
    req.on("error", reject);
    req.end(body);
  });
}

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** How late each chunk is against the upstream's schedule, measured from the stream's first chunk. */
const lateness = (times, delayMs) => times.map((t, i) => t - times[0] - i * delayMs);

/** Time to first byte and chunk lateness of one stream at a time, 20 chunks 20 ms apart. */
export async function chunkTiming(target, runs) {
  await timedStream(target, "chat", 0);
  const firsts = [];
  const late = [];
  for (let run = 0; run < runs; run++) {
    const times = await timedStream(target, run % 2 ? "messages" : "chat", 20);
    firsts.push(times[0]);
    late.push(...lateness(times, 20));
  }
  return { ttfbP50: percentile(firsts, 50), chunkLateP99: percentile(late, 99) };
}

/**
 * `count` streams open at once (half chat, half messages), 20 chunks `delayMs` apart: peak RSS, CPU per stream
 * and chunk lateness p99 of the serving process (for `direct`, lateness only: its process is the upstream).
 * Their starts spread over one chunk interval, as real traffic arrives: started in the same instant, every
 * stream's chunk would come in the same wave, and the figure would measure the length of a wave of `count`.
 */
async function openStreams(target, count, delayMs) {
  const cpuBefore = cpuMs(target.pid);
  const startAfter = (i) => new Promise((resolve) => setTimeout(resolve, (i * delayMs) / count));
  const { peak, result } = await peakRssDuring(target.pid, () =>
    Promise.all(Array.from({ length: count }, (_, i) => startAfter(i).then(() => timedStream(target, i % 2 ? "messages" : "chat", delayMs)))),
  );
  const cpu = cpuMs(target.pid) - cpuBefore;
  return { count, rssPeakMb: peak, cpuMsPerStream: cpu / count, chunkLateP99: percentile(result.flatMap((t) => lateness(t, delayMs)), 99) };
}

/**
 * `openStreams` for every target, `rounds` times interleaved: one figure from one round is mostly the scheduling
 * noise of three busy processes on few cores. Per target: the highest peak RSS, the median CPU per stream, the
 * median and range of the lateness p99, and the median of what a proxy adds to `direct`'s p99 in the same round.
 */
export async function openStreamsRounds(targets, count, delayMs, rounds) {
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const run = {};
    for (const target of targets) run[target.name] = await openStreams(target, count, delayMs);
    runs.push(run);
  }
  const row = { count };
  for (const { name } of targets) {
    const mine = runs.map((run) => run[name]);
    const p99s = mine.map((r) => r.chunkLateP99);
    row[name] = {
      rssPeakMb: Math.max(...mine.map((r) => r.rssPeakMb)),
      cpuMsPerStream: percentile(mine.map((r) => r.cpuMsPerStream), 50),
      chunkLateP99: percentile(p99s, 50),
      chunkLateP99Range: [Math.min(...p99s), Math.max(...p99s)],
      addedP99: percentile(runs.map((run) => run[name].chunkLateP99 - run.direct.chunkLateP99), 50),
    };
  }
  return row;
}
