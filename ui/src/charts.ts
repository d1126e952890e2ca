import uPlot from "uplot";
import type { RequestRecord } from "../../src/request-log/record.js";

/** Bucket width for a window: about 30 to 50 points whatever the window. */
const bucketSeconds = (windowSeconds: number): number => (windowSeconds <= 900 ? 30 : windowSeconds <= 3600 ? 60 : 1800);

function percentile(sorted: number[], p: number): number | null {
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! : null;
}

/** Series over time from the records of the window: requests, tokens in/out, latency p50/p95. */
export function series(records: readonly RequestRecord[], windowSeconds: number, now = Date.now() / 1000) {
  const step = bucketSeconds(windowSeconds);
  const start = Math.floor((now - windowSeconds) / step) * step;
  const count = Math.ceil((now - start) / step);
  const times = Array.from({ length: count }, (_, i) => start + i * step);
  const requests = new Array<number>(count).fill(0);
  const tokensIn = new Array<number>(count).fill(0);
  const tokensOut = new Array<number>(count).fill(0);
  const durations = Array.from({ length: count }, () => [] as number[]);
  for (const r of records) {
    const i = Math.floor((Date.parse(r.time) / 1000 - start) / step);
    if (i < 0 || i >= count) continue;
    requests[i]!++;
    tokensIn[i]! += r.inputTokens ?? 0;
    tokensOut[i]! += r.outputTokens ?? 0;
    durations[i]!.push(r.durationMs);
  }
  const sorted = durations.map((d) => d.sort((a, b) => a - b));
  return {
    requests: [times, requests] as uPlot.AlignedData,
    tokens: [times, tokensIn, tokensOut] as uPlot.AlignedData,
    latency: [times, sorted.map((d) => percentile(d, 0.5)), sorted.map((d) => percentile(d, 0.95))] as uPlot.AlignedData,
  };
}

const css = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** One small time chart; `update` swaps its data, `resize` follows its container. */
export function timeChart(el: HTMLElement, labels: string[], colors: string[], kind: "bars" | "line" | "points") {
  const bars = kind === "bars";
  const axis = { stroke: css("--muted"), grid: { stroke: css("--grid"), width: 1 }, ticks: { stroke: css("--grid"), width: 1 } };
  const options: uPlot.Options = {
    width: el.clientWidth || 300,
    height: 150,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true } },
    axes: [axis, { ...axis, size: 48 }],
    series: [
      {},
      ...labels.map((label, i) => ({
        label,
        stroke: colors[i],
        fill: bars ? colors[i] + "55" : undefined,
        width: 1.5,
        spanGaps: true,
        // Latency has no value in an empty bucket, so a lone busy bucket would draw nothing without its point.
        ...(bars ? { paths: uPlot.paths.bars!({ size: [0.7, 24] }), points: { show: false } } : { points: { show: kind === "points", size: 5 } }),
      })),
    ],
  };
  const plot = new uPlot(options, [[], ...labels.map(() => [])] as unknown as uPlot.AlignedData, el);
  new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 150 })).observe(el);
  return { update: (data: uPlot.AlignedData) => plot.setData(data) };
}
