// Streams with a slow upstream: when each chunk arrives against the upstream's schedule, and what many open
// streams cost the serving process.
import { Agent, request as httpRequest } from "node:http";
import { cpuMs, peakRssDuring } from "./processes.mjs";
import { requestFor } from "./requests.mjs";

const agent = new Agent({ keepAlive: true, maxSockets: 4096 });
export const closeStreams = () => agent.destroy();

/**
 * Arrival times (ms, on this process's clock) of every chunk of one stream: `chunks` events `delayMs` apart from
 * the fake upstream.
 */
function timedStream(target, family, delayMs, chunks = 20) {
  const { path, headers, body } = requestFor({ family, stream: true, query: `delay=${delayMs}&chunks=${chunks}` }, target.key);
  return new Promise((resolve, reject) => {
    const times = [];
    const req = httpRequest(`${target.url}${path}`, { method: "POST", headers, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${target.name}: status ${res.statusCode}`));
      res.on("data", () => times.push(performance.now()));
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
    const sent = performance.now();
    const times = await timedStream(target, run % 2 ? "messages" : "chat", 20);
    firsts.push(times[0] - sent);
    late.push(...lateness(times, 20));
  }
  return { ttfbP50: percentile(firsts, 50), chunkLateP99: percentile(late, 99) };
}

/**
 * `count` streams of `chunks` events `delayMs` apart (half chat, half messages), their starts spread evenly over
 * `rampMs`: peak RSS and CPU per stream of the serving process (for `direct`, the upstream itself), and chunk
 * lateness p99 twice: over the chunks that arrive while all `count` streams are open (from the last stream's
 * first chunk to the first stream's last), which is what holding that many streams costs each chunk, and over
 * every chunk, the ramp of new connections included.
 */
async function openStreams(target, { count, delayMs, chunks, rampMs }) {
  const cpuBefore = cpuMs(target.pid);
  const startAfter = (i) => new Promise((resolve) => setTimeout(resolve, (i * rampMs) / count));
  const { peak, result } = await peakRssDuring(target.pid, () =>
    Promise.all(Array.from({ length: count }, (_, i) => startAfter(i).then(() => timedStream(target, i % 2 ? "messages" : "chat", delayMs, chunks)))),
  );
  const cpu = cpuMs(target.pid) - cpuBefore;
  const allOpen = Math.max(...result.map((times) => times[0]));
  const firstDone = Math.min(...result.map((times) => times.at(-1)));
  const late = [];
  const lateAllOpen = [];
  for (const times of result) {
    lateness(times, delayMs).forEach((ms, i) => {
      late.push(ms);
      if (times[i] > allOpen && times[i] < firstDone) lateAllOpen.push(ms);
    });
  }
  return { count, rssPeakMb: peak, cpuMsPerStream: cpu / count, chunkLateP99: percentile(lateAllOpen, 99), rampLateP99: percentile(late, 99) };
}

/**
 * `openStreams` for every target, `rounds` times interleaved: one figure from one round is mostly the scheduling
 * noise of three busy processes on few cores. Per target: the highest peak RSS, the median CPU per stream, the
 * median and range of the lateness p99 while all are open, and the medians of what a proxy adds to `direct`'s
 * p99s in the same round.
 */
export async function openStreamsRounds(targets, shape, rounds) {
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const run = {};
    for (const target of targets) run[target.name] = await openStreams(target, shape);
    runs.push(run);
  }
  const row = { count: shape.count };
  const added = (name, field) => percentile(runs.map((run) => run[name][field] - run.direct[field]), 50);
  for (const { name } of targets) {
    const mine = runs.map((run) => run[name]);
    const p99s = mine.map((r) => r.chunkLateP99);
    row[name] = {
      rssPeakMb: Math.max(...mine.map((r) => r.rssPeakMb)),
      cpuMsPerStream: percentile(mine.map((r) => r.cpuMsPerStream), 50),
      chunkLateP99: percentile(p99s, 50),
      chunkLateP99Range: [Math.min(...p99s), Math.max(...p99s)],
      addedP99: added(name, "chunkLateP99"),
      rampLateP99: percentile(mine.map((r) => r.rampLateP99), 50),
      rampAddedP99: added(name, "rampLateP99"),
    };
  }
  return row;
}
