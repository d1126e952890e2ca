import uPlot from "uplot";
import { formatClock, formatDateTime } from "../../src/request-log/format.js";
import type { RequestRecord } from "../../src/request-log/record.js";
import { tickLabels } from "./tick-labels.js";

/** Bucket widths in seconds, finest first: a window is drawn in the finest that keeps it within 120 points. */
const STEPS = [1, 5, 10, 30, 60, 300, 900, 1800, 3600];
const MAX_POINTS = 120;

/** A chart window choice: a fixed span in seconds, or `auto` (from the first request kept, at least a minute). */
export type WindowChoice = number | "auto";

/**
 * Where the charts start and how wide a bucket is. `auto` fits the data: a gateway a few minutes old is drawn
 * second by second over those minutes, not as a spike at the right edge of an hour.
 */
export function chartWindow(records: readonly RequestRecord[], choice: WindowChoice, now = Date.now() / 1000): { start: number; step: number } {
  const first = records.length ? Date.parse(records[0]!.time) / 1000 : now;
  const span = choice === "auto" ? Math.max(60, now - first) : choice;
  const step = STEPS.find((s) => span / s <= MAX_POINTS) ?? STEPS.at(-1)!;
  return { start: Math.floor((now - span) / step) * step, step };
}

function percentile(sorted: number[], p: number): number | null {
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! : null;
}

/** Series over time from the records of the window: requests, tokens in/out, latency p50/p95, and how many fell in it. */
export function series(records: readonly RequestRecord[], choice: WindowChoice, now = Date.now() / 1000) {
  const { start, step } = chartWindow(records, choice, now);
  const count = Math.ceil((now - start) / step);
  const times = Array.from({ length: count }, (_, i) => start + i * step);
  const requests = new Array<number>(count).fill(0);
  const tokensIn = new Array<number>(count).fill(0);
  const tokensOut = new Array<number>(count).fill(0);
  const durations = Array.from({ length: count }, () => [] as number[]);
  let inWindow = 0;
  for (const r of records) {
    const i = Math.floor((Date.parse(r.time) / 1000 - start) / step);
    if (i < 0 || i >= count) continue;
    inWindow++;
    requests[i]!++;
    tokensIn[i]! += r.inputTokens ?? 0;
    tokensOut[i]! += r.outputTokens ?? 0;
    durations[i]!.push(r.durationMs);
  }
  const sorted = durations.map((d) => d.sort((a, b) => a - b));
  return {
    step,
    inWindow,
    requests: [times, requests] as uPlot.AlignedData,
    tokens: [times, tokensIn, tokensOut] as uPlot.AlignedData,
    latency: [times, sorted.map((d) => percentile(d, 0.5)), sorted.map((d) => percentile(d, 0.95))] as uPlot.AlignedData,
  };
}

const css = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** Time ticks' steps in seconds: from a second to a day, none more than 2.5 times the one before. */
const TIME_STEPS = [1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 14400, 21600, 28800, 43200, 86400];

/**
 * The least room, in px, between two time ticks (uPlot takes the smallest step that gets it): 48 for `14:03` and a
 * gap, 64 for `14:03:07` when 48 px would let the 30 s step in (labels less than a minute apart show seconds).
 */
const timeSpace = (_u: uPlot, _axis: number, min: number, max: number, width: number): number => (30 * (width / (max - min)) >= 48 ? 64 : 48);

/** `1.2K`, `3.4M`: a value axis stays narrow whatever the counts. */
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/**
 * One small time chart that follows its container's width. `update` swaps its data; with nothing in the window
 * the chart says so over its empty axes, and `el.dataset.step` tells the bucket width in seconds.
 */
export function timeChart(el: HTMLElement, labels: string[], colors: string[], kind: "bars" | "line" | "points") {
  const bars = kind === "bars";
  const axis = { grid: { stroke: css("--grid"), width: 1 }, ticks: { stroke: css("--grid"), width: 1 } };
  // 24-hour local time, with seconds when the ticks are less than a minute apart.
  const ticks = tickLabels({ x: (time, step) => formatClock(time * 1000, step < 60), y: (value) => compact.format(value) });
  const options: uPlot.Options = {
    width: el.clientWidth || 300,
    height: 150,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true } },
    axes: [
      { ...axis, space: timeSpace, incrs: TIME_STEPS, size: 32, values: ticks.values("x") },
      { ...axis, size: 48, values: ticks.values("y") },
    ],
    hooks: { draw: [ticks.draw] },
    series: [
      { value: (_u, time) => (time === null ? "--" : formatDateTime(time * 1000)) },
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
  const empty = document.createElement("p");
  empty.className = "chart-empty";
  empty.textContent = "No requests in this window yet: they appear here as tools send them.";
  el.append(empty);
  return {
    update(data: uPlot.AlignedData, step: number, inWindow: number): void {
      el.dataset.step = String(step);
      empty.hidden = inWindow > 0;
      plot.setData(data);
    },
  };
}
