import { NO_PRICES, type Pricer } from "../pricing/index.js";
import type { RequestRecord, RequestSink } from "../request-log/record.js";
import type { GaugeReadings } from "./gauge-readings.js";
import type { MetricsSink, RequestObserver } from "./observations.js";
import type { PrometheusExport } from "./prometheus-export.js";

/**
 * Records kept until a sink and the prices are loaded: a gateway nobody scrapes loads neither prom-client nor the
 * price table for its metrics. No more than the dashboard's ring already keeps alive (`dashboard/live-feed.ts`); past
 * it, the Prometheus registry loads, so no request goes uncounted.
 */
export const MAX_PENDING = 10_000;

export interface GatewayMetricsOptions {
  observer: RequestObserver;
  /** The gateway's pricer, shared with the dashboard and the budgets. */
  pricer: () => Promise<Pricer>;
  readings: GaugeReadings;
}

/**
 * One gateway's metrics (SPEC 12): fed every record by the gateway's sink, from the one place records are made
 * (`server/stages/record.ts`), and handed to each loaded sink, priced. The Prometheus registry loads on the first
 * scrape (or when `MAX_PENDING` records wait); an OTLP meter is added when an endpoint is set.
 */
export function createGatewayMetrics(options: GatewayMetricsOptions) {
  const sinks: MetricsSink[] = [];
  let price: Pricer | undefined;
  let pending: RequestRecord[] = [];
  let prometheus: Promise<PrometheusExport> | undefined;
  let pricing: Promise<void> | undefined;

  const apply = (record: RequestRecord, pricer: Pricer) => {
    const observation = options.observer.observe(record);
    const cost = pricer(record);
    for (const sink of sinks) sink.add(observation, typeof cost === "number" ? cost : undefined);
  };
  const drain = () => {
    if (!price || sinks.length === 0) return;
    const queued = pending;
    pending = [];
    for (const record of queued) apply(record, price);
  };
  const prices = (): Promise<void> =>
    (pricing ??= options.pricer().then(
      (loaded) => void (price = loaded),
      () => void (price = NO_PRICES),
    ));

  /**
   * Adds a sink; the records waiting reach it once the prices are loaded. A sink added after records were drained
   * never sees those: the OTLP meter and the Prometheus registry are added together (`startGateway`) for that reason.
   */
  async function attach(sink: MetricsSink): Promise<void> {
    sinks.push(sink);
    await prices();
    drain();
  }

  function loadPrometheus(): Promise<PrometheusExport> {
    return (prometheus ??= import("./prometheus-export.js").then(async ({ createPrometheusExport }) => {
      const loaded = createPrometheusExport(options.readings);
      await attach(loaded);
      return loaded;
    }));
  }

  const sink: RequestSink = (record) => {
    if (price && sinks.length > 0) return apply(record, price);
    pending.push(record);
    if (pending.length >= MAX_PENDING) void loadPrometheus();
  };

  return {
    sink,
    attach,
    /** Loads the Prometheus registry now (with an OTLP export, at start: both then count every request alike). */
    loadPrometheus,
    /** The Prometheus text of every metric, and its content type. */
    async scrape(): Promise<{ contentType: string; text: string }> {
      const registry = await loadPrometheus();
      return { contentType: registry.contentType, text: await registry.scrape() };
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
