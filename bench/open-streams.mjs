// node bench/open-streams.mjs [--count 9900] [--warm 20] [--bin <bin/gateway.js>] [--heap-snapshot] (after `npm run build`)
// The bench's most-open-streams scenario alone (issue 53 goal 4: 10,000 open streams under 400 MB, none failed):
// the several-upstreams gateway, first under `--warm` seconds of chat JSON load as in the full run's load phases
// (which fill the dashboard's ring and the metrics' pending records before the streams come), then `--count` streams
// of 15 chunks 1 s apart, half chat passed through and half messages translated, 2,000 new a second. Prints the
// gateway's peak RSS and the streams that failed. `--heap-snapshot` has the gateway write a heap snapshot
// (`node --heapsnapshot-signal`) before the streams and once every stream is open, into the system's temporary directory.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { severalUpstreams } from "./configs.mjs";
import { f } from "./format.mjs";
import { runLoad } from "./load.mjs";
import { finish, rssMb, startProcess } from "./processes.mjs";
import { requestFor } from "./requests.mjs";
import { openStreams } from "./streams.mjs";

const { values } = parseArgs({
  options: { count: { type: "string", default: "9900" }, warm: { type: "string", default: "20" }, bin: { type: "string" }, "heap-snapshot": { type: "boolean", default: false } },
});
const COUNT = Number(values.count);
const UPSTREAM_KEY = "sk-bench-upstream";
const LOCAL_KEY = "gw-bench-local";
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "gateway-open-streams-"));

async function main() {
  const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: UPSTREAM_KEY }, /port (\d+)/);
  mkdirSync(join(scratch, "config"), { recursive: true, mode: 0o700 });
  writeFileSync(join(scratch, "config", "config.json"), JSON.stringify(severalUpstreams(upstream.url)));
  const env = { BENCH_UPSTREAM_KEY: UPSTREAM_KEY, GATEWAY_API_KEY: UPSTREAM_KEY, GATEWAY_LOCAL_KEY: LOCAL_KEY, GATEWAY_CONFIG_DIR: join(scratch, "config"), GATEWAY_STATE_DIR: join(scratch, "state"), NO_COLOR: "1" };
  const bin = values.bin ?? here("../bin/gateway.js");
  const node = values["heap-snapshot"] ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${tmpdir()}`] : [];
  const gateway = { name: "several", key: LOCAL_KEY, ...(await startProcess([...node, bin, "start", "--port", "0", "--quiet"], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/)) };
  const idle = rssMb(gateway.pid);
  const load = requestFor({ family: "chat", stream: false }, LOCAL_KEY);
  if (Number(values.warm) > 0) await runLoad(`${gateway.url}${load.path}`, load, 50, Number(values.warm));
  await sleep(2_000);
  const before = rssMb(gateway.pid);
  const shape = { count: COUNT, delayMs: 1_000, chunks: 15, rampMs: Math.max(1_000, COUNT / 2) };
  const model = `slow-${shape.delayMs}-${shape.chunks}`;
  const requests = [requestFor({ family: "chat", stream: true, model }, LOCAL_KEY), requestFor({ family: "messages", stream: true, model }, LOCAL_KEY)];
  // One snapshot before the streams, one halfway through the time every stream is open (from the ramp's end to the
  // first stream's last chunk, 15 s after it started): what the streams hold is the difference.
  const snap = () => process.kill(gateway.pid, "SIGUSR2");
  if (values["heap-snapshot"]) snap();
  const allOpenMs = shape.rampMs + (shape.chunks * shape.delayMs - shape.rampMs) / 2;
  const snapshot = values["heap-snapshot"] ? sleep(1_500 + allOpenMs).then(snap) : undefined;
  const result = await openStreams(gateway, requests, shape);
  await snapshot;
  return { idle, before, result };
}

finish(
  main(),
  ({ idle, before, result }) =>
    `${COUNT} open streams: gateway peak RSS ${f(result.rssPeakMb, 1)} MB (idle ${f(idle, 1)}, ${f(before, 1)} after the warm load), ${result.failed} failed${result.firstFailure ? ` (${result.firstFailure})` : ""}, CPU ${f(result.cpuMsPerStream, 2)} ms a stream, TTFB p99 ${f(result.ttfbP99, 1)} ms; load average ${loadavg().map((l) => f(l, 2)).join(" ")}`,
  scratch,
);
