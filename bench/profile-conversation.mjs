// node bench/profile-conversation.mjs [passthrough|translated|responses] [MB]: a CPU profile (`node --cpu-prof`) of the gateway
// serving long conversations (issue 43: find where the time goes first), and its top functions by self time.
// The gateway (one upstream for passthrough, the several-upstreams config to translate) and the fake upstream run
// as in the bench; 40 requests of one conversation are sent one at a time (`responses`: in Codex's shape, translated
// to chat).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TRANSLATED_MODEL, oneUpstream, severalUpstreams } from "./configs.mjs";
import { conversation } from "./conversations.mjs";
import { startProcess, stopAll } from "./processes.mjs";
import { auth, pathOf } from "./requests.mjs";

const mode = process.argv[2] ?? "passthrough";
const bytes = Number(process.argv[3] ?? 3) * 1024 * 1024;
const scratch = mkdtempSync(join(tmpdir(), "gateway-profile-"));
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const KEY = "sk-bench-upstream";

const upstream = await startProcess([here("fake-upstream.mjs")], { BENCH_UPSTREAM_KEY: KEY }, /port (\d+)/);
mkdirSync(join(scratch, "config"), { recursive: true, mode: 0o700 });
writeFileSync(join(scratch, "config", "config.json"), JSON.stringify(mode === "passthrough" ? oneUpstream(upstream.url) : severalUpstreams(upstream.url)));
const env = { BENCH_UPSTREAM_KEY: KEY, GATEWAY_API_KEY: KEY, GATEWAY_LOCAL_KEY: "gw-bench-local", GATEWAY_CONFIG_DIR: join(scratch, "config"), GATEWAY_STATE_DIR: join(scratch, "state"), NO_COLOR: "1" };
const bin = process.env.GATEWAY_BIN ?? here("../bin/gateway.js");
const gateway = await startProcess(["--cpu-prof", `--cpu-prof-dir=${scratch}`, bin, "start", "--port", "0", "--quiet"], env, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
const family = mode === "responses" ? "responses" : "messages";
const body = conversation(bytes)[family](mode === "passthrough" ? "m" : TRANSLATED_MODEL);
for (let i = 0; i < 40; i++) {
  const res = await fetch(`${gateway.url}${pathOf(family)}`, { method: "POST", headers: { ...auth[family]("gw-bench-local"), "content-type": "application/json" }, body });
  await res.text();
  if (res.status !== 200) throw new Error(`${res.status}`);
}
// SIGINT: the gateway shuts down on its own, and Node writes the profile as it exits.
process.kill(gateway.pid, "SIGINT");
let file;
for (let i = 0; i < 100 && !file; i++, await new Promise((r) => setTimeout(r, 100))) file = readdirSync(scratch).find((name) => name.endsWith(".cpuprofile"));
stopAll();
const profile = JSON.parse(readFileSync(join(scratch, file), "utf8"));
const self = new Map();
const dt = profile.timeDeltas;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
profile.samples.forEach((id, i) => {
  const { callFrame: c } = byId.get(id);
  const key = `${c.functionName || "(anonymous)"} ${c.url.replace(/^.*\/(node_modules|dist|node:)/, "$1")}:${c.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const top = [...self].filter(([key]) => !key.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, 25);
process.stdout.write(`${mode}, ${(bytes / 1024 / 1024).toFixed(0)} MB, 40 requests; profile ${join(scratch, file)}; ${(total / 1000).toFixed(0)} ms sampled\n`);
for (const [key, us] of top) process.stdout.write(`${(us / 1000).toFixed(1).padStart(8)} ms  ${key}\n`);
