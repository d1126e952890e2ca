// The goals of issue 43, each as a figure measured in this run, with its target and whether it is met.
import { f, ratio } from "./format.mjs";
import { SIZES, addedMs } from "./long-conversations.mjs";

const STREAMS = ["chat stream, 20 chunks", "messages stream, 20 chunks", "gemini stream, 20 chunks", "chat stream, 4 tool calls in 40 pieces"];
const JSON_REPLIES = ["chat non-stream", "messages non-stream", "gemini non-stream", "chat non-stream, aliased model", "chat non-stream, 1 connection"];
const mb = (bytes) => (bytes < 1024 * 1024 ? `${f(bytes / 1024)} KB` : `${f(bytes / 1024 / 1024)} MB`);

/** Rows of `[goal, measured, target, met]`. */
function rows(report) {
  const out = [];
  const row = (goal, measured, target, met) => out.push([goal, measured, target, met]);
  // 1. Long conversations.
  const conv = report.conversations.results;
  const passthrough = conv.map((r) => ({ r, gateway: addedMs(r, "passthrough"), floor: addedMs(r, "floor") }));
  row(
    "1. passthrough added time over the floor's, long conversations, one at a time",
    // A floor that added nothing (or less than nothing, in a noisy run) leaves no ratio to state.
    passthrough.map(({ r, gateway, floor }) => `${mb(r.bytes)}: ${f(gateway, 1)} / ${f(floor, 1)} ms${floor > 0 ? ` = ${f(gateway / floor, 2)}x` : ""}`).join("; "),
    "<= 1.5x at every size",
    passthrough.every(({ gateway, floor }) => gateway <= 1.5 * Math.max(floor, 0)),
  );
  for (const name of ["messages -> chat", "responses -> chat"]) {
    const at = (bytes) => conv.find((r) => r.bytes === bytes);
    const [oneMb, threeMb] = [SIZES[2], SIZES[3]].map((bytes) => addedMs(at(bytes), name));
    row(`1. ${name} added time, one at a time`, `1 MB: ${f(oneMb, 1)} ms; 3 MB: ${f(threeMb, 1)} ms`, "<= 6 ms at 1 MB, <= 15 ms at 3 MB", oneMb <= 6 && threeMb <= 15);
  }
  const last = conv.at(-1);
  for (const [name, peak] of Object.entries(last.peakRssMb)) {
    const idle = report.conversations.idleRssMb[name];
    const limit = idle + 4 * last.inFlightMb;
    row(`1. peak RSS, ${name} process, 8 x ${mb(last.bytes)} at once`, `${f(peak, 1)} MB`, `<= idle ${f(idle, 1)} + 4 x ${f(last.inFlightMb)} = ${f(limit, 1)} MB`, peak <= limit);
  }
  // 2. The one-off prompt.
  const c = report.cold;
  row("2. `gateway chat -m echo-1 hi` / `node -e 0`, no gateway running", `${f(c.chatAlone.ratio, 2)}x`, "<= 2.5x", c.chatAlone.ratio <= 2.5);
  row("2. the same with a gateway of the same config running", `${f(c.chatRunning.ratio, 2)}x`, "<= 2x", c.chatRunning.ratio <= 2);
  row("2. `gateway start` to its first /health / a bare node:http server", `${f(c.startToHealth.ratio, 2)}x`, "<= 1.5x", c.startToHealth.ratio <= 1.5);
  // 3. One connection.
  for (const r of report.oneConnection.results) {
    row(`3. one connection, ${r.label}: added over the floor p50 / p99`, `${f(r.addedP50, 3)} / ${f(r.addedP99, 3)} ms`, "<= +0.1 / +0.5 ms", r.addedP50 <= 0.1 && r.addedP99 <= 0.5);
  }
  // 4. Throughput.
  const throughput = (labels, goal, minRps, maxCpu) => {
    const each = labels.map((label) => {
      const { floor, gateway } = report.load[label];
      return { rps: ratio(gateway.rps, floor.rps), cpu: ratio(gateway.cpuUsPerReq, floor.cpuUsPerReq) };
    });
    const measured = `req/s ${f(Math.min(...each.map((e) => e.rps)), 2)}-${f(Math.max(...each.map((e) => e.rps)), 2)}x at CPU ${f(Math.min(...each.map((e) => e.cpu)), 2)}-${f(Math.max(...each.map((e) => e.cpu)), 2)}x`;
    row(goal, measured, `>= ${minRps}x req/s at <= ${maxCpu}x CPU`, each.every((e) => e.rps >= minRps && e.cpu <= maxCpu));
  };
  throughput(STREAMS, "4. passthrough streams / the floor", 0.8, 1.35);
  throughput(JSON_REPLIES, "4. JSON replies, the aliased model, one connection / the floor", 0.75, 1.45);
  for (const { label } of report.translatedScenarios) {
    const { several, ccr, "floor-translate": least } = report.translated[label];
    if (least) row(`4. ${label} / the bare translator`, `${f(ratio(several.rps, least.rps), 2)}x`, ">= 0.90x", ratio(several.rps, least.rps) >= 0.9);
    if (ccr) row(`4. ${label} / claude-code-router`, `${f(ratio(several.rps, ccr.rps), 1)}x`, ">= 8x", ratio(several.rps, ccr.rps) >= 8);
  }
  // 5. Hold what was reached (round 3's figures are the targets).
  const t = report.timing;
  row("5. chunk lateness p99, passthrough, added over direct", `${f(t.gateway.chunkLateP99 - t.direct.chunkLateP99, 2)} ms`, "<= +0.5 ms", t.gateway.chunkLateP99 - t.direct.chunkLateP99 <= 0.5);
  row("5. chunk lateness p99, translated, added over passthrough", `${f(t.translated.chunkLateP99 - t.gateway.chunkLateP99, 2)} ms`, "<= +0.5 ms", t.translated.chunkLateP99 - t.gateway.chunkLateP99 <= 0.5);
  const most = report.scale.at(-1);
  row(`5. ${most.shape.count} open streams, gateway peak RSS`, `${f(most.several.rssPeakMb, 1)} MB, ${most.several.failed} failed`, "< 400 MB, none failed", most.several.rssPeakMb < 400 && most.several.failed === 0);
  row(`5. burst of ${report.burst.shape.count} new streams within 1 s through the gateway`, `${report.burst.several.failed} failed`, "none failed", report.burst.several.failed === 0);
  row("5. cold start: `gateway env` / `status` over `node -e 0`", `+${f(c.env - c.nodeFloor)} / +${f(c.status - c.nodeFloor)} ms`, "<= +70 ms each", c.env - c.nodeFloor <= 70 && c.status - c.nodeFloor <= 70);
  const aliased = report.load["chat non-stream, aliased model"];
  const several = [ratio(aliased.several.rps, aliased.gateway.rps), ratio(aliased.several.cpuUsPerReq, aliased.gateway.cpuUsPerReq)];
  row("5. several upstreams / one: req/s, CPU per request", several.map((r) => `${f(r, 3)}x`).join(", "), "within 3%", several.every((r) => Math.abs(r - 1) <= 0.03));
  const slowest = Math.max(...Object.values(report.modelList.lags));
  row("5. model-list union, median", `${f(report.modelList.ms, 1)} ms`, `<= the slowest upstream's ${slowest} + 10 ms`, report.modelList.ms <= slowest + 10);
  return out;
}

/** The goals table: one line per goal figure. */
export function goalsTable(report) {
  return [
    "| goal (issue 43) | measured in this run | target | met |",
    "|---|---|---|---|",
    ...rows(report).map(([goal, measured, target, met]) => `| ${goal} | ${measured} | ${target} | ${met ? "met" : "**not met**"} |`),
  ];
}
