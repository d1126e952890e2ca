// The bench report as Markdown tables. Throughput ratios are taken within each round, then averaged.
const f = (n, d = 0) => (n === undefined || Number.isNaN(n) ? "-" : n.toFixed(d));
const ratio = (a, b) => (b ? a / b : NaN);
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

function loadTable(report) {
  const lines = [
    "| scenario | direct req/s | floor req/s | gateway req/s | gateway/floor req/s | floor CPU µs/req | gateway CPU µs/req | gateway/floor CPU | gateway p50 / p99 ms |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const label of report.scenarios) {
    const per = (name, field) => mean(report.rounds.map((round) => round[label][name][field]));
    const rpsRatio = mean(report.rounds.map((round) => ratio(round[label].gateway.rps, round[label].floor.rps)));
    const cpuRatio = mean(report.rounds.map((round) => ratio(round[label].gateway.cpuUsPerReq, round[label].floor.cpuUsPerReq)));
    lines.push(
      `| ${label} | ${f(per("direct", "rps"))} | ${f(per("floor", "rps"))} | ${f(per("gateway", "rps"))} | ${f(rpsRatio, 2)} | ${f(per("floor", "cpuUsPerReq"))} | ${f(per("gateway", "cpuUsPerReq"))} | ${f(cpuRatio, 2)} | ${f(per("gateway", "p50Ms"), 2)} / ${f(per("gateway", "p99Ms"), 2)} |`,
    );
  }
  return lines;
}

function memoryTable({ memory: m, timing: t }) {
  const added = (name, field) => `${f(t[name][field], 2)} (+${f(t[name][field] - t.direct[field], 2)})`;
  return [
    "| figure | direct | floor | gateway | gateway/floor |",
    "|---|---|---|---|---|",
    `| RSS idle MB | ${f(m.idle.direct, 1)} | ${f(m.idle.floor, 1)} | ${f(m.idle.gateway, 1)} | ${f(ratio(m.idle.gateway, m.idle.floor), 2)} |`,
    `| RSS right after load MB | ${f(m.afterLoad.direct, 1)} | ${f(m.afterLoad.floor, 1)} | ${f(m.afterLoad.gateway, 1)} | ${f(ratio(m.afterLoad.gateway, m.afterLoad.floor), 2)} |`,
    `| RSS after settling MB (above idle) | ${f(m.settled.direct, 1)} | ${f(m.settled.floor, 1)} (+${f(m.settled.floor - m.idle.floor, 1)}) | ${f(m.settled.gateway, 1)} (+${f(m.settled.gateway - m.idle.gateway, 1)}) | |`,
    `| stream TTFB p50 ms (added vs direct) | ${f(t.direct.ttfbP50, 2)} | ${added("floor", "ttfbP50")} | ${added("gateway", "ttfbP50")} | |`,
    `| chunk lateness p99 ms (added vs direct) | ${f(t.direct.chunkLateP99, 2)} | ${added("floor", "chunkLateP99")} | ${added("gateway", "chunkLateP99")} | |`,
  ];
}

function scaleTable({ scale, scaleShape: shape, scaleRounds }) {
  const lines = [
    `| open streams (${shape.chunks} chunks ${shape.delayMs} ms apart, started over ${shape.rampMs / 1000} s; ${scaleRounds} round(s), medians) | floor RSS MB | gateway RSS MB | floor CPU ms/stream | gateway CPU ms/stream | lateness p99 ms while all open: direct / floor / gateway | added: floor / gateway | p99 range: direct / floor / gateway | whole run p99 added (ramp included): floor / gateway |`,
    "|---|---|---|---|---|---|---|---|---|",
  ];
  const range = (r) => `${f(r.chunkLateP99Range[0], 1)}-${f(r.chunkLateP99Range[1], 1)}`;
  for (const row of scale) {
    lines.push(
      `| ${row.count} | ${f(row.floor.rssPeakMb, 1)} | ${f(row.gateway.rssPeakMb, 1)} | ${f(row.floor.cpuMsPerStream, 2)} | ${f(row.gateway.cpuMsPerStream, 2)} | ${f(row.direct.chunkLateP99, 2)} / ${f(row.floor.chunkLateP99, 2)} / ${f(row.gateway.chunkLateP99, 2)} | ${f(row.floor.addedP99, 2)} / ${f(row.gateway.addedP99, 2)} | ${range(row.direct)} / ${range(row.floor)} / ${range(row.gateway)} | ${f(row.floor.rampAddedP99, 2)} / ${f(row.gateway.rampAddedP99, 2)} |`,
    );
  }
  return lines;
}

function coldTable({ cold: c }) {
  const over = (ms) => `${f(ms)} (+${f(ms - c.nodeFloor)})`;
  return [
    "| cold start, median ms | time (over `node -e 0`) |",
    "|---|---|",
    `| \`node -e 0\` | ${f(c.nodeFloor)} |`,
    `| reading the config (node + config module) | ${over(c.configRead)} |`,
    `| \`gateway --version\` | ${over(c.version)} |`,
    `| \`gateway env\` | ${over(c.env)} |`,
    `| \`gateway status\` | ${over(c.status)} |`,
    `| \`gateway start\` to the first /health 200 | ${f(c.startToHealth)} |`,
  ];
}

export function render(report) {
  const head = `machine: ${report.machine}; load: ${report.generator}, ${report.seconds} s per target and scenario after ${report.warmSeconds} s unmeasured, ${report.rounds.length} interleaved round(s)${report.quick ? " (quick mode)" : ""}${report.capture ? "; gateway with --capture" : ""}`;
  return [head, "", ...loadTable(report), "", ...memoryTable(report), "", ...scaleTable(report), "", ...coldTable(report)].join("\n");
}
