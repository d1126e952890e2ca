import { collectDefaultMetrics, Gauge, Registry, type Metric } from "prom-client";
import type { BudgetState } from "../budgets/budgets.js";
import type { GaugeReadings } from "./gauge-readings.js";
import { METRICS } from "./metric-names.js";
import type { RequestSums, SeriesSums } from "./request-sums.js";

/** `GET /metrics`' answer: the Prometheus text exposition format. */
export interface PrometheusExport {
  readonly contentType: string;
  scrape(): Promise<string>;
}

interface RenderedValue {
  metricName: string;
  labels: Record<string, string | number>;
  sharedLabels?: Readonly<Record<string, string>>;
  value: number;
}

/** A histogram's lines as prom-client's `Histogram.get` gives them: cumulative buckets with `le` first, then `+Inf`, sum and count. */
function histogramValues(name: string, sums: SeriesSums): RenderedValue[] {
  const values: RenderedValue[] = [];
  for (const series of sums.series()) {
    let below = 0;
    sums.bounds.forEach((bound, i) => {
      below += series.buckets[i]!;
      values.push({ metricName: `${name}_bucket`, labels: { le: bound }, sharedLabels: series.labels, value: below });
    });
    values.push({ metricName: `${name}_bucket`, labels: { le: "+Inf" }, sharedLabels: series.labels, value: series.count });
    values.push({ metricName: `${name}_sum`, labels: {}, sharedLabels: series.labels, value: series.sum });
    values.push({ metricName: `${name}_count`, labels: {}, sharedLabels: series.labels, value: series.count });
  }
  return values;
}

const counterValues = (name: string, sums: SeriesSums): RenderedValue[] => [...sums.series()].map((series) => ({ metricName: name, labels: series.labels, value: series.sum }));

/**
 * A metric the registry renders from running sums at a scrape: prom-client's registry writes any object whose `get`
 * answers what its own metrics' `get` does (`lib/registry.js`, `getMetricsAsString`), so the text is the one its
 * `Histogram` and `Counter` wrote, and nothing is observed into prom-client per request.
 */
function summed(metric: { prom: string; help: string }, type: "counter" | "histogram", values: () => RenderedValue[]): Metric {
  const rendered = { name: metric.prom, help: metric.help, type, aggregator: "sum" as const };
  return { ...rendered, get: async () => ({ ...rendered, values: values() }) } as unknown as Metric;
}

/**
 * One gateway's metrics in a prom-client `Registry` of its own (never the global one: tests run several gateways in one
 * process), with the process and Node.js defaults prom-client writes; the request metrics are rendered from `sums`.
 * Loaded by a dynamic import on the first scrape: prom-client requires `@opentelemetry/api` (for its CPU counter's
 * exemplars), which a gateway nobody scrapes never loads.
 */
export function createPrometheusExport(readings: GaugeReadings, sums: RequestSums): PrometheusExport {
  const registers = [new Registry()];
  const [register] = registers as [Registry];
  // The event-loop lag is sampled every 100 ms rather than prom-client's 10: a gateway idle on a laptop should not
  // wake a hundred times a second for a histogram.
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: 100 });
  register.registerMetric(summed(METRICS.tokenUsage, "histogram", () => histogramValues(METRICS.tokenUsage.prom, sums.tokens)));
  register.registerMetric(summed(METRICS.duration, "histogram", () => histogramValues(METRICS.duration.prom, sums.duration)));
  register.registerMetric(summed(METRICS.timeToFirstToken, "histogram", () => histogramValues(METRICS.timeToFirstToken.prom, sums.ttft)));
  register.registerMetric(summed(METRICS.requests, "counter", () => counterValues(METRICS.requests.prom, sums.requests)));
  register.registerMetric(summed(METRICS.cost, "counter", () => counterValues(METRICS.cost.prom, sums.cost)));
  // A scrape collects its metrics at once: the two budget gauges share one read of the budgets.
  let reading: Promise<BudgetState[]> | undefined;
  const readBudgets = () => (reading ??= readings.budgets().finally(() => (reading = undefined)));
  const budgetGauge = (metric: { prom: string; help: string }, value: (state: BudgetState) => number) => {
    const gauge: Gauge = new Gauge({
      name: metric.prom,
      help: metric.help,
      labelNames: ["scope", "period"],
      registers,
      async collect() {
        const states = await readBudgets();
        gauge.reset();
        for (const state of states) gauge.set({ scope: state.scope, period: state.period }, value(state));
      },
    });
  };
  budgetGauge(METRICS.budgetSpent, (state) => state.spentUsd);
  budgetGauge(METRICS.budgetLimit, (state) => state.limitUsd);
  const resting = new Gauge({
    name: METRICS.keyResting.prom,
    help: METRICS.keyResting.help,
    labelNames: ["upstream", "key"],
    registers,
    collect() {
      resting.reset();
      for (const key of readings.restingKeys()) resting.set({ upstream: key.upstream, key: key.key }, key.resting ? 1 : 0);
    },
  });
  const inflight = new Gauge({
    name: METRICS.inflight.prom,
    help: METRICS.inflight.help,
    registers,
    collect() {
      inflight.set(readings.inflight());
    },
  });
  return { contentType: register.contentType, scrape: () => register.metrics() };
}
