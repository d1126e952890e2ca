// The goals of issue 53 (round 5), each as a figure measured in this run, with its target and whether it is met; the
// one-off prompt's goals are still round 4's (issue 43, goal 2).
import { featureCostRow } from "./feature-cost.mjs";
import { f, ratio } from "./format.mjs";
import { addedMs } from "./long-conversations.mjs";
import { oneOffRows } from "./one-off-goals.mjs";

const STREAMS = ["chat stream, 20 chunks", "messages stream, 20 chunks", "gemini stream, 20 chunks", "chat stream, 4 tool calls in 40 pieces"];
const JSON_REPLIES = ["chat non-stream", "messages non-stream", "gemini non-stream", "chat non-stream, aliased model", "chat non-stream, 1 connection"];
const TRANSLATED_CONVERSATIONS = ["messages -> chat", "responses -> chat"];
const mb = (bytes) => (bytes < 1024 * 1024 ? `${f(bytes / 1024)} KB` : `${f(bytes / 1024 / 1024)} MB`);
const span = (values, d) => `${f(Math.min(...values), d)}-${f(Math.max(...values), d)}`;

/** Rows of `[goal, measured, target, met]`. */
function rows(report) {
  const out = [];
  const row = (goal, measured, target, met) => out.push([goal, measured, target, met]);
  // 1. Long conversations at the limit of a checking gateway.
  const conv = report.conversations.results;
  const passthrough = conv.map((r) => ({ r, gateway: addedMs(r, "passthrough"), floor: addedMs(r, "floor"), limit: addedMs(r, "floor") + 1.25 * r.decodeAndParseMs }));
  row(
    "1. passthrough added time, long conversations, one at a time: the floor's + 1.25x the body's decode and parse alone",
    passthrough.map(({ r, gateway, floor }) => `${mb(r.bytes)}: ${f(gateway, 1)} ms (floor ${f(floor, 1)}, decode + parse ${f(r.decodeAndParseMs, 1)})`).join("; "),
    `<= ${passthrough.map(({ r, limit }) => `${f(limit, 1)} ms at ${mb(r.bytes)}`).join(", ")}`,
    passthrough.every(({ gateway, limit }) => gateway <= limit),
  );
  if (conv[0].one["bare translator"]) {
    for (const name of TRANSLATED_CONVERSATIONS) {
      const each = conv.map((r) => ({ r, gateway: addedMs(r, name), least: addedMs(r, "bare translator") }));
      row(
        `1. ${name} added time, long conversations, one at a time / the bare translator's (messages -> chat)`,
        each.map(({ r, gateway, least }) => `${mb(r.bytes)}: ${f(gateway, 1)} / ${f(least, 1)} ms${least > 0 ? ` = ${f(gateway / least, 2)}x` : ""}`).join("; "),
        "<= 1.2x at every size",
        each.every(({ gateway, least }) => gateway <= 1.2 * Math.max(least, 0)),
      );
    }
  }
  const last = conv.at(-1);
  for (const [name, peak] of Object.entries(last.peakRssMb)) {
    const idle = report.conversations.idleRssMb[name];
    const times = name === "passthrough" ? 4 : 6;
    const limit = idle + times * last.inFlightMb;
    row(`1. peak RSS, ${name} process, 8 x ${mb(last.bytes)} at once`, `${f(peak, 1)} MB`, `<= idle ${f(idle, 1)} + ${times} x ${f(last.inFlightMb)} = ${f(limit, 1)} MB`, peak <= limit);
  }
  // 2. One connection, the way tools use it.
  for (const r of report.oneConnection.results) {
    const [p50, p99] = r.label.includes("->") ? [0.2, 0.6] : [0.1, 0.5];
    row(`2. one connection, ${r.label}: added over the floor p50 / p99`, `${f(r.addedP50, 3)} / ${f(r.addedP99, 3)} ms`, `<= +${p50} / +${p99} ms`, r.addedP50 <= p50 && r.addedP99 <= p99);
  }
  // 3. Throughput as the gateway process's CPU per request, req/s beside it.
  const throughput = (labels, goal, maxCpu) => {
    const each = labels.map((label) => {
      const { floor, gateway } = report.load[label];
      return { rps: ratio(gateway.rps, floor.rps), cpu: ratio(gateway.cpuUsPerReq, floor.cpuUsPerReq) };
    });
    row(goal, `CPU per request ${span(each.map((e) => e.cpu), 2)}x (req/s ${span(each.map((e) => e.rps), 2)}x)`, `<= ${maxCpu}x CPU per request`, each.every((e) => e.cpu <= maxCpu));
  };
  throughput(STREAMS, "3. passthrough streams / the floor", 1.3);
  throughput(JSON_REPLIES, "3. JSON replies, the aliased model, one connection / the floor", 1.4);
  for (const { label } of report.translatedScenarios) {
    const { several, ccr, "floor-translate": least } = report.translated[label];
    if (least) {
      const cpu = ratio(several.cpuUsPerReq, least.cpuUsPerReq);
      row(`3. ${label} / the bare translator`, `CPU per request ${f(cpu, 2)}x (req/s ${f(ratio(several.rps, least.rps), 2)}x)`, "<= 1.15x CPU per request", cpu <= 1.15);
    }
    if (ccr) {
      const cpu = ratio(ccr.cpuUsPerReq, several.cpuUsPerReq);
      row(`3. ${label}: claude-code-router / the gateway`, `CPU per request ${f(cpu, 1)}x (the gateway's req/s ${f(ratio(several.rps, ccr.rps), 1)}x)`, ">= 8x CPU per request", cpu >= 8);
    }
  }
  // 4. Hold what was reached.
  const t = report.timing;
  row("4. chunk lateness p99, passthrough, added over direct", `${f(t.gateway.chunkLateP99 - t.direct.chunkLateP99, 2)} ms`, "<= +0.5 ms", t.gateway.chunkLateP99 - t.direct.chunkLateP99 <= 0.5);
  row("4. chunk lateness p99, translated, added over passthrough", `${f(t.translated.chunkLateP99 - t.gateway.chunkLateP99, 2)} ms`, "<= +0.5 ms", t.translated.chunkLateP99 - t.gateway.chunkLateP99 <= 0.5);
  const most = report.scale.at(-1);
  row(`4. ${most.shape.count} open streams, gateway peak RSS`, `${f(most.several.rssPeakMb, 1)} MB, ${most.several.failed} failed`, "< 400 MB, none failed", most.several.rssPeakMb < 400 && most.several.failed === 0);
  row(`4. burst of ${report.burst.shape.count} new streams within 1 s through the gateway`, `${report.burst.several.failed} failed`, "none failed", report.burst.several.failed === 0);
  const aliased = report.load["chat non-stream, aliased model"];
  // One-sided (issue 53: several upstreams cost no more than one): a faster several-upstreams gateway meets it.
  const [rps, cpu] = [ratio(aliased.several.rps, aliased.gateway.rps), ratio(aliased.several.cpuUsPerReq, aliased.gateway.cpuUsPerReq)];
  row("4. several upstreams / one: req/s, CPU per request", [rps, cpu].map((r) => `${f(r, 3)}x`).join(", "), "req/s >= 0.97x, CPU per request <= 1.03x", rps >= 0.97 && cpu <= 1.03);
  row(...featureCostRow(report.featureCost));
  const slowest = Math.max(...Object.values(report.modelList.lags));
  row("4. model-list union, median", `${f(report.modelList.ms, 1)} ms`, `<= the slowest upstream's ${slowest} + 10 ms`, report.modelList.ms <= slowest + 10);
  // The one-off prompt and the cold start (issue 52's goals, stated once in one-off-goals.mjs).
  for (const [goal, measured, target, met] of oneOffRows(report.cold)) row(`one-off: ${goal}`, measured, target, met);
  return out;
}

/** The goals table: one line per goal figure. */
export function goalsTable(report) {
  return [
    "| goal (issue 53; the one-off prompt's: issue 52) | measured in this run | target | met |",
    "|---|---|---|---|",
    ...rows(report).map(([goal, measured, target, met]) => `| ${goal} | ${measured} | ${target} | ${met ? "met" : "**not met**"} |`),
  ];
}
