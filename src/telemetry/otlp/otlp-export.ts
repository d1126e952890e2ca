import type { IncomingHttpHeaders } from "node:http";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Meter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { OtlpSettings, OtlpTarget } from "../../config/index.js";
import type { Pricer } from "../../pricing/index.js";
import { clientName } from "../../request-log/client-name.js";
import type { RequestRecord } from "../../request-log/record.js";
import type { GaugeReadings } from "../gauge-readings.js";
import { METRICS } from "../metric-names.js";
import type { MetricsSink, Observation } from "../observations.js";
import type { RequestSpan, RequestTracer } from "../request-tracer.js";
import { createExportWarnings, type ExportOutcome, type ExportWarnings } from "./export-warnings.js";
import { spanAttributes, spanName } from "./span-attributes.js";

/** A stopping gateway waits this long for its last exports, and no longer for a collector that hangs. */
export const CLOSE_WAIT_MS = 2_000;

export interface OtlpExportOptions {
  settings: OtlpSettings;
  version: string;
  readings: GaugeReadings;
  /** The gateway's pricer, for `gateway.cost_usd`. */
  pricer: () => Promise<Pricer>;
  /** An upstream's kind and origin, by its name. */
  upstreamOf: (name: string) => { kind: string; origin: string | undefined } | undefined;
  /** Told, at most once a minute, that exports fail. */
  warn: (line: string) => void;
}

/** The running OTLP export: a tracer when traces have an endpoint, a metrics sink when metrics do. */
export interface OtlpExport {
  tracer: RequestTracer | undefined;
  meter: MetricsSink | undefined;
  /** Sends what is still queued (the last spans, a last metrics export) and stops; waits at most `CLOSE_WAIT_MS` for the collector. */
  close(): Promise<void>;
}

interface Exporter<T> {
  export(items: T, done: (result: ExportOutcome) => void): void;
}

/** Has `exporter` report each export's outcome, so a collector that is down costs a warning, never a request. */
function reporting<T, E extends Exporter<T>>(exporter: E, signal: "traces" | "metrics", target: OtlpTarget, warnings: ExportWarnings): E {
  const send = exporter.export.bind(exporter);
  exporter.export = (items, done) =>
    send(items, (result) => {
      warnings(signal, target.url, result);
      done(result);
    });
  return exporter;
}

const exporterOptions = (target: OtlpTarget) => ({ url: target.url, headers: { ...target.headers }, timeoutMillis: 10_000 });

async function spanExporter(target: OtlpTarget) {
  const { OTLPTraceExporter } = target.protocol === "http/json" ? await import("@opentelemetry/exporter-trace-otlp-http") : await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter(exporterOptions(target));
}

async function metricExporter(target: OtlpTarget) {
  const { OTLPMetricExporter } = target.protocol === "http/json" ? await import("@opentelemetry/exporter-metrics-otlp-http") : await import("@opentelemetry/exporter-metrics-otlp-proto");
  return new OTLPMetricExporter(exporterOptions(target));
}

const hostOf = (origin: string | undefined): string | undefined => (origin !== undefined && URL.canParse(origin) ? new URL(origin).hostname : undefined);

/** The tracer: a span per request, exported in batches off the request path (the SDK's `BatchSpanProcessor`). */
function createTracer(provider: BasicTracerProvider, options: OtlpExportOptions, price: () => Pricer | undefined): RequestTracer {
  const tracer = provider.getTracer("gateway", options.version);
  const propagator = new W3CTraceContextPropagator();
  const getter = {
    keys: (carrier: IncomingHttpHeaders) => Object.keys(carrier),
    get: (carrier: IncomingHttpHeaders, key: string) => carrier[key],
  };
  return {
    start(headers): RequestSpan {
      const parent = propagator.extract(ROOT_CONTEXT, headers, getter);
      const span = tracer.startSpan("chat", { kind: SpanKind.CLIENT }, parent);
      const upstreamHeaders: Record<string, string> = {};
      propagator.inject(trace.setSpan(parent, span), upstreamHeaders, { set: (carrier, key, value) => void (carrier[key] = value) });
      return {
        upstreamHeaders,
        end(record: RequestRecord, request) {
          const upstream = record.upstream === undefined ? undefined : options.upstreamOf(record.upstream);
          span.updateName(spanName(record));
          span.setAttributes(
            spanAttributes(record, {
              maxTokens: request?.endpoint.format ? request.maxTokens() : undefined,
              costUsd: price()?.(record),
              provider: upstream?.kind,
              serverAddress: hostOf(upstream?.origin),
              client: clientName(record.userAgent),
            }),
          );
          if (record.status >= 400 || record.outcome !== "complete") span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
  };
}

/** The OTLP meter: the same metrics as `/metrics`, under their OpenTelemetry names, at the reader's interval. */
function createMeter(meter: Meter, readings: GaugeReadings): MetricsSink {
  const histogram = (metric: { otel: string; unit: string; help: string; buckets: readonly number[] }) =>
    meter.createHistogram(metric.otel, { unit: metric.unit, description: metric.help, advice: { explicitBucketBoundaries: [...metric.buckets] } });
  const tokens = histogram(METRICS.tokenUsage);
  const duration = histogram(METRICS.duration);
  const ttft = histogram(METRICS.timeToFirstToken);
  const requests = meter.createCounter(METRICS.requests.otel, { unit: METRICS.requests.unit, description: METRICS.requests.help });
  const cost = meter.createCounter(METRICS.cost.otel, { unit: METRICS.cost.unit, description: METRICS.cost.help });
  const gauge = (metric: { otel: string; unit: string; help: string }) => meter.createObservableGauge(metric.otel, { unit: metric.unit, description: metric.help });
  const spent = gauge(METRICS.budgetSpent);
  const limit = gauge(METRICS.budgetLimit);
  const resting = gauge(METRICS.keyResting);
  const inflight = gauge(METRICS.inflight);
  meter.addBatchObservableCallback(
    async (result) => {
      for (const state of await readings.budgets()) {
        result.observe(spent, state.spentUsd, { scope: state.scope, period: state.period });
        result.observe(limit, state.limitUsd, { scope: state.scope, period: state.period });
      }
      for (const key of readings.restingKeys()) result.observe(resting, key.resting ? 1 : 0, { upstream: key.upstream, key: key.key });
      result.observe(inflight, readings.inflight());
    },
    [spent, limit, resting, inflight],
  );
  return {
    add(observation: Observation, costUsd: number | undefined) {
      requests.add(1, observation.request);
      if (costUsd !== undefined) cost.add(costUsd, observation.cost);
      const { call } = observation;
      if (!call) return;
      duration.record(call.durationSeconds, call.attributes);
      if (call.timeToFirstToken) ttft.record(call.timeToFirstToken.seconds, call.timeToFirstToken.attributes);
      for (const point of call.tokens) tokens.record(point.count, point.attributes);
    },
  };
}

/**
 * Starts the OTLP export (SPEC 12) with the OpenTelemetry JS SDK. This module, and every `@opentelemetry` module, is
 * loaded only by a dynamic import when an endpoint is set (`server/start-gateway.ts`); providers are the gateway's own,
 * never registered as the process's global ones, so several gateways in one process export apart.
 */
export async function startOtlpExport(options: OtlpExportOptions): Promise<OtlpExport> {
  const { settings } = options;
  const warnings = createExportWarnings(options.warn);
  const resource = resourceFromAttributes({ "service.name": settings.serviceName, "service.version": options.version });
  let price: Pricer | undefined;
  const pricing = options.pricer().then((loaded) => void (price = loaded), () => undefined);
  const closers: (() => Promise<void>)[] = [];
  let tracer: RequestTracer | undefined;
  let meter: MetricsSink | undefined;
  if (settings.traces) {
    const exporter = reporting(await spanExporter(settings.traces), "traces", settings.traces, warnings);
    const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.spanDelayMs })] });
    tracer = createTracer(provider, options, () => price);
    closers.push(() => provider.shutdown());
  }
  if (settings.metrics) {
    const exporter = reporting(await metricExporter(settings.metrics), "metrics", settings.metrics, warnings);
    const interval = settings.metricIntervalMs;
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval, exportTimeoutMillis: Math.min(interval, 30_000) });
    const provider = new MeterProvider({ resource, readers: [reader] });
    meter = createMeter(provider.getMeter("gateway", options.version), options.readings);
    closers.push(() => provider.shutdown());
  }
  await pricing;
  return {
    tracer,
    meter,
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
      await Promise.race([Promise.allSettled(closers.map((close) => close())), waited]);
      clearTimeout(timer);
    },
  };
}
