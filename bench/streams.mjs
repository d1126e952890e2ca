// Streams with a slow upstream: when each chunk arrives against the upstream's schedule, and what many open
// streams cost the serving process. Chunks are told apart by the `tok<i>` the fake upstream writes in each, so a
// translated stream (whose events are not the upstream's) is timed the same way as a passthrough one.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cpuMs, peakRssDuring } from "./processes.mjs";

const CLIENT = fileURLToPath(new URL("stream-client.mjs", import.meta.url));
/** Streams per load-client process at most: one Node process reads about 8,000 chunks a second. */
const STREAMS_PER_CLIENT = 2_500;

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Runs `streams` ({ index, at }) in `clients` processes; resolves with one result per stream, in index order. */
function runClients(url, requests, streams, clients) {
  const jobs = Array.from({ length: clients }, (_, c) => streams.filter((_, i) => i % clients === c));
  return Promise.all(
    jobs.map(
      (mine) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [CLIENT, JSON.stringify({ url, requests, streams: mine })], { stdio: ["ignore", "pipe", "inherit"] });
          let out = "";
          child.stdout.on("data", (chunk) => (out += chunk));
          child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`stream client exited with ${code}`))));
        }),
    ),
  ).then((parts) => streams.map((_, i) => parts[i % clients][Math.floor(i / clients)]));
}

/** How late each chunk is against the upstream's schedule, measured from the stream's first chunk. */
const lateness = (arrivals, delayMs) => arrivals.map((t, i) => t - arrivals[0] - i * delayMs);

/**
 * Time to first chunk and chunk lateness of one stream at a time, `chunks` chunks `delayMs` apart, with `requests`
 * taken in turn (one load-client process).
 */
export async function chunkTiming(target, requests, runs, delayMs = 20) {
  const firsts = [];
  const late = [];
  for (let run = 0; run < runs; run++) {
    const [result] = await runClients(target.url, [requests[run % requests.length]], [{ index: 0, at: 0 }], 1);
    if (result.error) throw new Error(`${target.name}: ${result.error}`);
    firsts.push(result.arrivals[0] - result.sent);
    late.push(...lateness(result.arrivals, delayMs));
  }
  return { ttfbP50: percentile(firsts, 50), chunkLateP99: percentile(late, 99) };
}

/**
 * `count` streams of `chunks` chunks `delayMs` apart, `requests` taken in turn, their starts spread evenly over
 * `rampMs`, from `count / 2,500` load-client processes (at least 2): peak RSS and CPU per stream of the serving
 * process, time to first chunk (p50, p99), and chunk lateness p99 twice: over the chunks that arrive while all
 * `count` streams are open (from the last stream's first chunk to the first stream's last), which is what holding
 * that many streams costs each chunk, and over every chunk, the ramp of new connections included.
 */
export async function openStreams(target, requests, { count, delayMs, chunks, rampMs }) {
  const clients = Math.max(2, Math.ceil(count / STREAMS_PER_CLIENT));
  // The clients take a moment to start: the schedule begins after that.
  const startAt = performance.timeOrigin + performance.now() + 500 + 100 * clients;
  const streams = Array.from({ length: count }, (_, index) => ({ index, at: startAt + (index * rampMs) / count }));
  const cpuBefore = cpuMs(target.pid);
  const { peak, result } = await peakRssDuring(target.pid, () => runClients(target.url, requests, streams, clients));
  const cpu = cpuMs(target.pid) - cpuBefore;
  const failed = result.filter((r) => r.error || r.arrivals.length !== chunks);
  const done = result.filter((r) => !r.error && r.arrivals.length === chunks);
  const allOpen = Math.max(...done.map((r) => r.arrivals[0]));
  const firstDone = Math.min(...done.map((r) => r.arrivals.at(-1)));
  const late = [];
  const lateAllOpen = [];
  for (const { arrivals } of done) {
    lateness(arrivals, delayMs).forEach((ms, i) => {
      late.push(ms);
      if (arrivals[i] > allOpen && arrivals[i] < firstDone) lateAllOpen.push(ms);
    });
  }
  const ttfb = done.map((r) => r.arrivals[0] - r.sent);
  return {
    count,
    failed: failed.length,
    firstFailure: failed[0]?.error ?? (failed[0] ? `${failed[0].arrivals.length} of ${chunks} chunks` : undefined),
    rssPeakMb: peak,
    cpuMsPerStream: cpu / count,
    ttfbP50: percentile(ttfb, 50),
    ttfbP99: percentile(ttfb, 99),
    chunkLateP99: lateAllOpen.length ? percentile(lateAllOpen, 99) : NaN,
    rampLateP99: percentile(late, 99),
  };
}
