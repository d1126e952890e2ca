import type { GatewayConfig, OtlpSettings } from "../config/index.js";
import { fanOut, type RequestSink } from "../request-log/record.js";
import { Secrets } from "../secrets.js";
import { teamBudgetRefresh } from "../team/budget-refresh.js";
import { refreshCatalogs, useCatalogs } from "../team/team-catalogs.js";
import type { OtlpExport } from "../telemetry/otlp/otlp-export.js";
import type { ReasoningSeal } from "../translate/index.js";
import { openUpstreams, type KeySourceFor } from "../upstream/upstream-set.js";
import { createGatewayContext, type GatewayContext } from "./gateway-context.js";
import { exchangeServer, type ExchangeServer } from "./gateway-handler.js";
import type { Occupancy } from "./inflight.js";
import { BODY_DEADLINE_MS } from "./stages/read-body.js";

export interface RequestPathOptions {
  config: GatewayConfig;
  /** The key source of each upstream. */
  keySourceFor: KeySourceFor;
  localKey: string;
  /** Signs the reasoning translated replies carry (`loadReasoningSeal`). */
  seal: ReasoningSeal;
  version: string;
  onRequest?: RequestSink | undefined;
  /** Put redacted headers in each request record. */
  recordHeaders?: boolean;
  /** A request body must arrive within this time, else 408. @default 60_000 */
  bodyTimeoutMs?: number;
  /** A translated messages stream whose upstream is silent this long starts anyway. @default 10_000 */
  earlyStartMs?: number;
  /** A translated stream that has sent the client nothing this long sends a keep-alive. @default 15_000 */
  keepAliveMs?: number;
  /** Told about an error the gateway did not expect (a bug; the client gets a 500). @default console.error */
  onInternalError?: (error: unknown) => void;
  /** Told when the gateway goes from no request open to one, and back (`createIdleMemory` for `gateway start`). */
  occupancy?: Occupancy;
  /** Where traces and metrics go over OTLP (`otlpSettings`); nothing is exported, nor any OpenTelemetry module loaded, without. */
  otlp?: OtlpSettings | undefined;
  /** Told, at most once a minute, that OTLP exports fail (a collector that is down). @default console.warn */
  onTelemetryWarning?: (line: string) => void;
  /** Told when a team upstream's catalog could not be read at start, and whether a kept one is used instead. */
  onCatalogFailure?: (upstream: string, failure: string, kept: boolean) => void;
}

/**
 * Starts the OTLP export (SPEC 12) before the gateway serves, so every request has its span: the OpenTelemetry SDK is
 * a dynamic import, loaded only here. With metrics exported, the Prometheus registry loads now too, so that `/metrics`
 * and the collector count the same requests.
 */
async function exportOverOtlp(ctx: GatewayContext, settings: OtlpSettings, options: RequestPathOptions): Promise<OtlpExport> {
  const { startOtlpExport } = await import("../telemetry/otlp/otlp-export.js");
  const otlp = await startOtlpExport({
    settings,
    version: options.version,
    readings: ctx.readings,
    pricer: ctx.pricing,
    upstreamOf: (name) => {
      const upstream = ctx.upstreams.named(name);
      return upstream && { kind: upstream.config.kind, origin: upstream.isEcho ? undefined : upstream.label };
    },
    warn: options.onTelemetryWarning ?? ((line) => console.warn(line)),
  });
  ctx.tracer = otlp.tracer;
  if (otlp.meter) await Promise.all([ctx.metrics.attach(otlp.meter), ctx.metrics.loadPrometheus()]);
  return otlp;
}

/**
 * The request path without a listener: the upstreams (and a team gateway's catalog), the gateway's context, the OTLP
 * export when an endpoint is set and the budgets' ledger, everything a request needs from the first one on.
 * `startGateway` puts a listener in front of it; a one-off `gateway chat` hands it its one exchange (`src/chat/`).
 */
export interface RequestPath {
  readonly ctx: GatewayContext;
  /** Runs one exchange through the stages (`exchangeServer`). */
  readonly serve: ExchangeServer;
  /** Closes the upstreams' pools and echo servers, then sends the last spans and metrics. */
  close(): Promise<void>;
}

/** Opens the request path of `options`: everything `gateway start` runs but the listener. */
export async function openRequestPath(options: RequestPathOptions): Promise<RequestPath> {
  // The keys this gateway handles, hidden in everything it keeps (captures): its local key, and each upstream key it sends.
  const secrets = new Secrets();
  secrets.remember(options.localKey);
  const upstreams = await openUpstreams(options.config, options.keySourceFor, secrets);
  // A team gateway's catalog is read before the first request is routed: its models are routable by their ids.
  const catalogs = await refreshCatalogs(upstreams.all, options.config.stateDir);
  useCatalogs(upstreams.all, catalogs);
  for (const [name, { catalog, failure }] of catalogs) {
    if (failure) options.onCatalogFailure?.(name, secrets.redact(failure), catalog !== undefined);
  }
  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_DEADLINE_MS;
  const refreshBudgets = catalogs.size > 0 ? teamBudgetRefresh(upstreams.all, options.config.stateDir) : undefined;
  const onRequest = refreshBudgets ? fanOut([...(options.onRequest ? [options.onRequest] : []), refreshBudgets]) : options.onRequest;
  const ctx = createGatewayContext({ ...options, onRequest, upstreams, bodyTimeoutMs, secrets });
  let otlp: OtlpExport | undefined;
  try {
    if (options.otlp) otlp = await exportOverOtlp(ctx, options.otlp, options);
    // Budgets are checked from the first request: what the log says was spent this month is read before serving.
    if (ctx.spend.budgets.length > 0) await ctx.spend.ledger();
  } catch (error) {
    await upstreams.close();
    await otlp?.close();
    throw error;
  }
  return {
    ctx,
    serve: exchangeServer(ctx),
    async close() {
      await upstreams.close();
      // The last spans and a last metrics export go out now (each exporter gives up after its timeout).
      await otlp?.close();
    },
  };
}
