// node bench/slow-replies.mjs passthrough|translated [MB] [processes], with A_BIN and B_BIN as for `ab-builds.mjs`:
// what two builds hold of long conversations while their replies stream slowly and new ones keep arriving (issue 53:
// what a request holds to the end of its reply). Waves of 4 requests of MB each, one wave every 250 ms, 12 waves;
// each reply is 20 events 100 ms apart (the fake's model `slow-100-20`), so about 30 replies are open at once. Each
// process's peak RSS over the phase (the kernel's `VmHWM`, reset before it), the builds' processes taking turns.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { oneUpstream, severalUpstreams } from "./configs.mjs";
import { conversation } from "./conversations.mjs";
import { peakRssMb, resetPeakRss, rssMb, startProcess, stopAll } from "./processes.mjs";
import { auth, pathOf } from "./requests.mjs";

const mode = process.argv[2] ?? "passthrough";
const MB = Number(process.argv[3] ?? 3);
const PROCESSES = Number(process.argv[4] ?? 4);
const WAVES = 12;
const KEY = "sk-bench-upstream";
const builds = { A: process.env.A_BIN, B: process.env.B_BIN ?? new URL("../bin/gateway.js", import.meta.url).pathname };
if (!builds.A) throw new Error("A_BIN: the bin/gateway.js of the build to compare with");
const scratch = mkdtempSync(join(tmpdir(), "slow-replies-"));
const up = await startProcess([new URL("fake-upstream.mjs", import.meta.url).pathname], { BENCH_UPSTREAM_KEY: KEY }, /port (\d+)/);
// The chat-only upstream serves `slow-*`: a messages request for it is translated; the one upstream passes it through.
const body = conversation(MB * 1024 * 1024).messages("slow-100-20");
const peaks = { A: [], B: [] };
for (let i = 0; i < PROCESSES; i++) {
  for (const [name, bin] of i % 2 ? Object.entries(builds).reverse() : Object.entries(builds)) {
    const dir = join(scratch, `${name}${i}`);
    mkdirSync(join(dir, "config"), { recursive: true });
    writeFileSync(join(dir, "config", "config.json"), JSON.stringify(mode === "passthrough" ? oneUpstream(up.url) : severalUpstreams(up.url)));
    const env = { BENCH_UPSTREAM_KEY: KEY, GATEWAY_API_KEY: KEY, GATEWAY_LOCAL_KEY: "gw-l", GATEWAY_CONFIG_DIR: join(dir, "config"), GATEWAY_STATE_DIR: join(dir, "state"), NO_COLOR: "1" };
    const gateway = await startProcess([bin, "start", "--port", "0", "--quiet"], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const send = () =>
      new Promise((resolve, reject) => {
        const headers = { ...auth.messages("gw-l"), "content-type": "application/json", "content-length": body.length };
        const req = request(`${gateway.url}${pathOf("messages")}`, { method: "POST", agent, headers }, (res) => {
          res.resume();
          res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`${name} ${res.statusCode}`))));
        });
        req.on("error", reject);
        req.end(body);
      });
    for (let j = 0; j < 3; j++) await send();
    const before = rssMb(gateway.pid);
    resetPeakRss(gateway.pid);
    const sent = [];
    for (let wave = 0; wave < WAVES; wave++) {
      for (let j = 0; j < 4; j++) sent.push(send());
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await Promise.all(sent);
    peaks[name].push(`${peakRssMb(gateway.pid).toFixed(0)} (before ${before.toFixed(0)})`);
    agent.destroy();
    process.kill(gateway.pid, "SIGKILL");
  }
}
console.log(`${mode} ${MB} MB, ${WAVES} waves of 4 every 250 ms, replies 2 s; peak RSS MB per process`);
for (const name of ["A", "B"]) console.log(`${name}: ${peaks[name].join(", ")}`);
stopAll();
rmSync(scratch, { recursive: true, force: true });
process.exit(0);
