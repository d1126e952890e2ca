// The bench report as Markdown tables. Throughput ratios are of the means over each name's processes.
const f = (n, d = 0) => (n === undefined || Number.isNaN(n) ? "-" : n.toFixed(d));
const ratio = (a, b) => (b ? a / b : NaN);

function loadTable(report) {
  const lines = [
    "| scenario | direct req/s | floor req/s | gateway req/s | gateway/floor req/s | floor CPU µs/req | gateway CPU µs/req | gateway/floor CPU | gateway p50 / p99 ms |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const label of report.scenarios) {
    const { direct, floor, gateway } = report.load[label];
    lines.push(
      `| ${label} | ${f(direct.rps)} | ${f(floor.rps)} | ${f(gateway.rps)} | ${f(ratio(gateway.rps, floor.rps), 2)} | ${f(floor.cpuUsPerReq)} | ${f(gateway.cpuUsPerReq)} | ${f(ratio(gateway.cpuUsPerReq, floor.cpuUsPerReq), 2)} | ${f(gateway.p50Ms, 2)} / ${f(gateway.p99Ms, 2)} |`,
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
  const head = `machine: ${report.machine}; load: ${report.generator}, ${report.seconds} s per process and scenario after ${report.warmSeconds} s unmeasured; ${report.instances} process(es) each of the floor and the gateway, taking turns, figures are their means${report.quick ? " (quick mode)" : ""}${report.capture ? "; gateway with --capture" : ""}`;
  return [head, "", ...loadTable(report), "", ...memoryTable(report), "", ...scaleTable(report), "", ...coldTable(report)].join("\n");
}
