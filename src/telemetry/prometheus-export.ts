import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { BudgetState } from "../budgets/budgets.js";
import type { GaugeReadings } from "./gauge-readings.js";
import { ATTRIBUTES, METRICS, promLabel } from "./metric-names.js";
import type { Attributes, MetricsSink, Observation } from "./observations.js";

/** `GET /metrics`' answer: the Prometheus text exposition format. */
export interface PrometheusExport extends MetricsSink {
  readonly contentType: string;
  scrape(): Promise<string>;
}

const labels = (attributes: Attributes): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const name in attributes) out[promLabel(name)] = attributes[name]!;
  return out;
};

const MODEL_LABELS = [ATTRIBUTES.operation, ATTRIBUTES.provider, ATTRIBUTES.requestModel, ATTRIBUTES.responseModel].map(promLabel);

/**
 * One gateway's metrics in a prom-client `Registry` of its own (never the global one: tests run several gateways in one
 * process), with the process and Node.js defaults prom-client writes. Loaded by a dynamic import on the first scrape:
 * prom-client requires `@opentelemetry/api` (for its CPU counter's exemplars), which a gateway nobody scrapes never loads.
 */
export function createPrometheusExport(readings: GaugeReadings): PrometheusExport {
  const registers = [new Registry()];
  const [register] = registers as [Registry];
  // The event-loop lag is sampled every 100 ms rather than prom-client's 10: a gateway idle on a laptop should not
  // wake a hundred times a second for a histogram.
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: 100 });
  const histogram = (metric: { prom: string; help: string; buckets: readonly number[] }, labelNames: string[]) =>
    new Histogram({ name: metric.prom, help: metric.help, labelNames, buckets: [...metric.buckets], registers });
  const tokens = histogram(METRICS.tokenUsage, [...MODEL_LABELS, promLabel(ATTRIBUTES.tokenType)]);
  const duration = histogram(METRICS.duration, [...MODEL_LABELS, promLabel(ATTRIBUTES.errorType)]);
  const ttft = histogram(METRICS.timeToFirstToken, MODEL_LABELS);
  const requests = new Counter({ name: METRICS.requests.prom, help: METRICS.requests.help, labelNames: ["format", "upstream", "route", "status_code"], registers });
  const cost = new Counter({ name: METRICS.cost.prom, help: METRICS.cost.help, labelNames: ["upstream", promLabel(ATTRIBUTES.requestModel)], registers });
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
  return {
    contentType: register.contentType,
    scrape: () => register.metrics(),
    add(observation: Observation, costUsd: number | undefined) {
      requests.inc(observation.request);
      if (costUsd !== undefined) cost.inc(labels(observation.cost), costUsd);
      const { call } = observation;
      if (!call) return;
      duration.observe(labels(call.attributes), call.durationSeconds);
      if (call.timeToFirstToken) ttft.observe(labels(call.timeToFirstToken.attributes), call.timeToFirstToken.seconds);
      for (const point of call.tokens) tokens.observe(labels(point.attributes), point.count);
    },
  };
}
