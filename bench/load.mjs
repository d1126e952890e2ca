// The load generator: wrk (C, one thread) when installed, else autocannon. autocannon runs in Node on the same
// cores as the targets and takes CPU from them, which flatters every proxy, so the report says which one ran.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const WRK_SCRIPT = fileURLToPath(new URL("wrk-request.lua", import.meta.url));
export const generator = spawnSync("wrk", ["--version"]).error ? "autocannon" : "wrk";

function runWrk(url, request, connections, seconds) {
  const env = { ...process.env, BENCH_BODY: request.body, BENCH_HEADERS: Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`).join("\n") };
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", WRK_SCRIPT, url];
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", args, { env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => {
      const line = out.match(/BENCH_RESULT (\{.*\})/);
      if (code !== 0 || !line) return reject(new Error(`wrk exited with ${code}: ${out}`));
      const r = JSON.parse(line[1]);
      resolve({ requests: r.requests, rps: r.requests / (r.durationUs / 1e6), p50Ms: r.p50Us / 1000, p99Ms: r.p99Us / 1000, errors: r.errors, non2xx: r.non2xx });
    });
  });
}

async function runAutocannon(url, request, connections, seconds) {
  const r = await autocannon({ url, method: "POST", headers: request.headers, body: request.body, connections, duration: seconds });
  return { requests: r.requests.total, rps: r.requests.total / seconds, p50Ms: r.latency.p50, p99Ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/** `connections` keep-alive connections sending `request` to `url` for `seconds`. */
export function runLoad(url, request, connections, seconds) {
  return generator === "wrk" ? runWrk(url, request, connections, seconds) : runAutocannon(url, request, connections, seconds);
}
