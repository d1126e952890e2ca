// The bench report as Markdown tables. Throughput ratios are of the means over each name's processes.
import { f, ratio, signed } from "./format.mjs";
import { featureCostTable } from "./feature-cost.mjs";
import { goalsTable } from "./goals.mjs";
import { AT_ONCE, addedMs } from "./long-conversations.mjs";

function loadTable(report) {
  const lines = [
    "| scenario | direct req/s | floor req/s | gateway req/s | gateway/floor req/s | floor CPU µs/req | gateway CPU µs/req | gateway/floor CPU | gateway p50 / p99 ms | previous floor (Pool.request + pipe) req/s, CPU µs/req |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const label of report.scenarios) {
    const { direct, floor, gateway, "floor-request": previous } = report.load[label];
    lines.push(
      `| ${label} | ${f(direct.rps)} | ${f(floor.rps)} | ${f(gateway.rps)} | ${f(ratio(gateway.rps, floor.rps), 2)} | ${f(floor.cpuUsPerReq)} | ${f(gateway.cpuUsPerReq)} | ${f(ratio(gateway.cpuUsPerReq, floor.cpuUsPerReq), 2)} | ${f(gateway.p50Ms, 2)} / ${f(gateway.p99Ms, 2)} | ${f(previous?.rps)}, ${f(previous?.cpuUsPerReq)} |`,
    );
  }
  return lines;
}

function translatedTable(report) {
  const lines = [
    "| translated on a chat-only upstream | floor req/s, passthrough of the same upstream reply | gateway req/s | gateway/floor req/s | gateway CPU µs/req | gateway p50 / p99 ms | translating floor req/s (its /floor), CPU µs/req | claude-code-router req/s | gateway/claude-code-router |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { label, reference } of report.translatedScenarios) {
    const { several, ccr, "floor-translate": least } = report.translated[label];
    const floor = report.load[reference].floor;
    const leastCell = least ? `${f(least.rps)} (${f(ratio(least.rps, floor.rps), 2)}), ${f(least.cpuUsPerReq)}` : "-";
    lines.push(
      `| ${label} | ${f(floor.rps)} | ${f(several.rps)} | ${f(ratio(several.rps, floor.rps), 2)} | ${f(several.cpuUsPerReq)} | ${f(several.p50Ms, 2)} / ${f(several.p99Ms, 2)} | ${leastCell} | ${f(ccr?.rps)} | ${f(ratio(several.rps, ccr?.rps), 1)} |`,
    );
  }
  return lines;
}

function severalTable(report) {
  const aliased = report.load[report.scenarios.find((label) => report.load[label].several)];
  const { gateway, several } = aliased;
  const lags = Object.values(report.modelList.lags);
  return [
    "| several upstreams | one upstream | 5 upstreams, 50 aliases and patterns | ratio |",
    "|---|---|---|---|",
    `| aliased model, req/s | ${f(gateway.rps)} | ${f(several.rps)} | ${f(ratio(several.rps, gateway.rps), 3)} |`,
    `| aliased model, CPU µs/req | ${f(gateway.cpuUsPerReq)} | ${f(several.cpuUsPerReq)} | ${f(ratio(several.cpuUsPerReq, gateway.cpuUsPerReq), 3)} |`,
    `| model-list union, median ms (upstreams answer after ${lags.join(", ")} ms: slowest ${Math.max(...lags)}, sum ${lags.reduce((a, b) => a + b, 0)}) | | ${f(report.modelList.ms, 1)} | |`,
  ];
}

function memoryTable({ memory: m, timing: t }) {
  const added = (name, field) => `${f(t[name][field], 2)} (${signed(t[name][field] - t.direct[field], 2)})`;
  const overPassthrough = (name) => (t[name] ? `${f(t[name].chunkLateP99, 2)} (${signed(t[name].chunkLateP99 - t.gateway.chunkLateP99, 2)} over the gateway's passthrough)` : "-");
  return [
    "| figure | direct | floor | gateway | gateway/floor |",
    "|---|---|---|---|---|",
    `| RSS idle MB | ${f(m.idle.direct, 1)} | ${f(m.idle.floor, 1)} | ${f(m.idle.gateway, 1)} | ${f(ratio(m.idle.gateway, m.idle.floor), 2)} |`,
    `| RSS right after load MB | ${f(m.afterLoad.direct, 1)} | ${f(m.afterLoad.floor, 1)} | ${f(m.afterLoad.gateway, 1)} | ${f(ratio(m.afterLoad.gateway, m.afterLoad.floor), 2)} |`,
    `| RSS after settling MB (above idle) | ${f(m.settled.direct, 1)} | ${f(m.settled.floor, 1)} (${signed(m.settled.floor - m.idle.floor, 1)}) | ${f(m.settled.gateway, 1)} (${signed(m.settled.gateway - m.idle.gateway, 1)}) | |`,
    `| stream TTFB p50 ms (added vs direct) | ${f(t.direct.ttfbP50, 2)} | ${added("floor", "ttfbP50")} | ${added("gateway", "ttfbP50")} | |`,
    `| chunk lateness p99 ms (added vs direct) | ${f(t.direct.chunkLateP99, 2)} | ${added("floor", "chunkLateP99")} | ${added("gateway", "chunkLateP99")} | |`,
    `| translated stream (messages -> chat), chunk lateness p99 ms: gateway / claude-code-router | | | ${overPassthrough("translated")} / ${overPassthrough("ccr")} | |`,
  ];
}

const NAMES = ["direct", "floor", "several"];
function scaleRow(label, row) {
  const all = (field, d) => NAMES.map((name) => f(row[name][field], d)).join(" / ");
  const added = (field) => ["floor", "several"].map((name) => f(row[name][field] - row.direct[field], 2)).join(" / ");
  const failed = NAMES.map((name) => row[name].failed).join(" / ");
  return `| ${label} | ${all("rssPeakMb", 1)} | ${all("cpuMsPerStream", 2)} | ${all("ttfbP99", 1)} | ${all("chunkLateP99", 2)} | ${added("chunkLateP99")} | ${added("rampLateP99")} | ${failed} |`;
}

function scaleTable({ scale, burst, fdLimit }) {
  const { delayMs, chunks } = scale[0].shape;
  const lines = [
    `| open streams (${chunks} chunks ${delayMs / 1000} s apart, 2,000 new a second; half translated through the gateway) | peak RSS MB: direct / floor / gateway | CPU ms/stream | TTFB p99 ms | lateness p99 ms while all open | added over direct: floor / gateway | whole run p99 added (ramp included): floor / gateway | streams failed |`,
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const row of scale) lines.push(scaleRow(String(row.shape.count), row));
  lines.push(scaleRow(`burst: ${burst.shape.count} new within 1 s, ${burst.shape.chunks} chunks ${burst.shape.delayMs} ms apart`, burst));
  lines.push("", `(open file descriptors per process here: ${fdLimit}; a proxy holds two per stream)`);
  return lines;
}

/** The cold start and one-off prompt tables (`npm run bench`, and `bench/one-off.mjs` on its own). */
export function coldTable({ cold: c }) {
  const over = (ms) => `${f(ms)} (${signed(ms - c.nodeFloor)})`;
  const paired = (p) => `${f(p.ms)} / ${f(p.baseline)} = ${f(p.ratio, 2)}x (${signed(p.ms - p.baseline)} ms) | ${f(p.cpuMs)} / ${f(p.baselineCpuMs)} |`;
  const t = c.toolLaunch;
  return [
    "| cold start, median ms (the five run in turn) | time (over `node -e 0`) |",
    "|---|---|",
    `| \`node -e 0\` | ${f(c.nodeFloor)} |`,
    `| reading the config (node + config module) | ${over(c.configRead)} |`,
    `| \`gateway --version\` | ${over(c.version)} |`,
    `| \`gateway env\` | ${over(c.env)} |`,
    `| \`gateway status\` | ${over(c.status)} |`,
    "",
    "| the one-off prompt, median ms (paired runs) | time / baseline | CPU ms / baseline's |",
    "|---|---|---|",
    `| \`gateway chat -m echo-1 hi\`, no gateway running / \`node -e 0\` | ${paired(c.chatAlone)}`,
    `| \`gateway chat -m echo-1 hi\`, a gateway of the same config running / \`node -e 0\` | ${paired(c.chatRunning)}`,
    `| \`gateway start\` to the first /health 200 / a bare node:http server started the same way | ${f(c.startToHealth.ms)} / ${f(c.startToHealth.baseline)} = ${f(c.startToHealth.ratio, 2)}x | - |`,
    ...(t
      ? [
          `| \`gateway run claude -p hi\` (echo upstream) / Claude Code with the same environment and arguments set by hand | ${paired(t)}`,
          `| the least Node launcher (\`bench/least-launcher.mjs\`) of that Claude Code / Claude Code by hand | ${paired(t.floor)}`,
          `| \`gateway run claude -p hi\` / the least Node launcher | ${paired(t.overFloor)}`,
        ]
      : []),
  ];
}

function conversationTable({ conversations: { results, idleRssMb, runs } }) {
  const names = Object.keys(results[0].one).filter((name) => !name.startsWith("fake"));
  const cell = (r, phase, name) => `${signed(addedMs(r, name, phase), 1)}`;
  const lines = [
    `| long conversation (Claude-Code-shaped), added ms over the fake alone, p50 of ${runs}: one at a time / ${AT_ONCE} at once (all done) | fake alone ms | decode + parse alone ms | ${names.join(" | ")} |`,
    `|---|---|---|${names.map(() => "---|").join("")}`,
  ];
  for (const r of results) {
    lines.push(`| ${f(r.sizes.fake / 1024)} KB | ${f(r.one.fake.p50, 1)} / ${f(r.many.fake.p50, 1)} | ${f(r.decodeAndParseMs, 1)} | ${names.map((name) => `${cell(r, "one", name)} / ${cell(r, "many", name)}`).join(" | ")} |`);
  }
  const last = results.at(-1);
  const rss = Object.entries(last.peakRssMb).map(([name, peak]) => `${name} ${f(peak, 1)} (idle ${f(idleRssMb[name], 1)}, +${f(peak - idleRssMb[name], 1)})`);
  lines.push("", `peak RSS MB with ${AT_ONCE} requests of ${f(last.bytes / 1024 / 1024)} MB in flight (${f(last.inFlightMb)} MB): ${rss.join("; ")}`);
  return lines;
}

function oneConnectionTable({ oneConnection: { results, runs } }) {
  const lines = [
    `| one connection, ${runs} requests each, floor and gateway in turn (JSON: to the last byte; stream: to the first body byte) | floor p50 / p99 ms | gateway p50 / p99 ms | added p50 / p99 ms |`,
    "|---|---|---|---|",
  ];
  for (const r of results) lines.push(`| ${r.label} | ${f(r.floor.p50, 3)} / ${f(r.floor.p99, 3)} | ${f(r.gateway.p50, 3)} / ${f(r.gateway.p99, 3)} | ${signed(r.addedP50, 3)} / ${signed(r.addedP99, 3)} |`);
  return lines;
}

export function render(report) {
  const head = `machine: ${report.machine}; load: ${report.generator}, ${report.seconds} s per process and scenario after ${report.warmSeconds} s unmeasured; ${report.instances} process(es) each of the floor and of each gateway, taking turns, figures are their means${report.quick ? " (quick mode)" : ""}${report.capture ? "; gateway with --capture" : ""}`;
  return [head, "", ...loadTable(report), "", ...translatedTable(report), "", ...severalTable(report), "", ...memoryTable(report), "", ...scaleTable(report), "", ...featureCostTable(report.featureCost), "", ...conversationTable(report), "", ...oneConnectionTable(report), "", ...coldTable(report), "", ...goalsTable(report)].join("\n");
}
