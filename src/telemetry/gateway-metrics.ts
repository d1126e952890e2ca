import { NO_PRICES, type Pricer } from "../pricing/index.js";
import type { RequestRecord, RequestSink } from "../request-log/record.js";
import type { GaugeReadings } from "./gauge-readings.js";
import type { MetricsSink, RequestObserver } from "./observations.js";
import type { PrometheusExport } from "./prometheus-export.js";
import { RequestSums } from "./request-sums.js";

/**
 * Records kept until the prices are loaded: a gateway nobody scrapes loads neither prom-client nor the price table
 * for its metrics. No more than the dashboard's ring already keeps alive (`dashboard/live-feed.ts`); past it, the
 * prices load (prom-client still waits for a scrape), so no request goes uncounted.
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
 * (`server/stages/record.ts`), and handed to each sink, priced: the running sums `/metrics` renders, and an OTLP
 * meter when an endpoint is set. The Prometheus registry loads on the first scrape; the prices then, or when
 * `MAX_PENDING` records wait.
 */
export function createGatewayMetrics(options: GatewayMetricsOptions) {
  const sums = new RequestSums();
  const sinks: MetricsSink[] = [sums];
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
    if (!price) return;
    const queued = pending;
    pending = [];
    for (const record of queued) apply(record, price);
  };
  const prices = (): Promise<void> =>
    (pricing ??= options.pricer().then(
      (loaded) => void (price = loaded),
      () => void (price = NO_PRICES),
    ));

  const priceAndDrain = async () => {
    await prices();
    drain();
  };

  /**
   * Adds a sink; the records waiting reach it once the prices are loaded. A sink added after records were drained
   * never sees those: the OTLP meter is added at start (`startGateway`) for that reason.
   */
  async function attach(sink: MetricsSink): Promise<void> {
    sinks.push(sink);
    await priceAndDrain();
  }

  function loadPrometheus(): Promise<PrometheusExport> {
    return (prometheus ??= import("./prometheus-export.js").then(async ({ createPrometheusExport }) => {
      await priceAndDrain();
      return createPrometheusExport(options.readings, sums);
    }));
  }

  const sink: RequestSink = (record) => {
    if (price) return apply(record, price);
    pending.push(record);
    if (pending.length === MAX_PENDING) void priceAndDrain();
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
