import type { GatewayConfig, OtlpSettings } from "../config/index.js";
import { upstreamFailed } from "../errors/index.js";
import { fanOut, type RequestSink } from "../request-log/record.js";
import type { ReasoningSeal } from "../translate/index.js";
import { teamBudgetRefresh } from "../team/budget-refresh.js";
import { refreshCatalogs, useCatalogs } from "../team/team-catalogs.js";
import { openUpstreams, type KeySourceFor } from "../upstream/upstream-set.js";
import type { OtlpExport } from "../telemetry/otlp/otlp-export.js";
import { createGatewayContext, type GatewayContext } from "./gateway-context.js";
import { createGatewayHandler, exchangeServer } from "./gateway-handler.js";
import { handleUpgrades } from "./responses-socket/upgrade.js";
import type { Occupancy } from "./inflight.js";
import { listenHandler, type RunningServer } from "./listen.js";
import { Secrets } from "../secrets.js";
import { BODY_DEADLINE_MS } from "./stages/read-body.js";

export interface StartGatewayOptions {
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
  /** Told of each WebSocket upgrade refused (method, path and the status answered), for the server log. */
  onUpgradeRefused?: (method: string, path: string, status: number) => void;
  /** Told when the gateway goes from no request open to one, and back (`createIdleMemory` for `gateway start`). */
  occupancy?: Occupancy;
  /** Where traces and metrics go over OTLP (`otlpSettings`); nothing is exported, nor any OpenTelemetry module loaded, without. */
  otlp?: OtlpSettings | undefined;
  /** Told, at most once a minute, that OTLP exports fail (a collector that is down). @default console.warn */
  onTelemetryWarning?: (line: string) => void;
  /** Told when a team upstream's catalog could not be read at start, and whether a kept one is used instead. */
  onCatalogFailure?: (upstream: string, failure: string, kept: boolean) => void;
}

/** A running local gateway. */
export interface Gateway {
  /** `http://127.0.0.1:8484` */
  url: string;
  port: number;
  /** `echo` or the default upstream's origin. */
  upstream: string;
  /** Requests open right now, from accept to last byte (the gateway's own pages are not requests). */
  inflight(): number;
  /**
   * Stops accepting, lets every open request finish for up to `graceMs` (waiting for its reply or streaming it),
   * then answers each one still waiting with 502 and ends each stream with the family's error event. Safe to
   * call twice.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts the OTLP export (SPEC 12) before the gateway serves, so every request has its span: the OpenTelemetry SDK is
 * a dynamic import, loaded only here. With metrics exported, the Prometheus registry loads now too, so that `/metrics`
 * and the collector count the same requests.
 */
async function exportOverOtlp(ctx: GatewayContext, settings: OtlpSettings, options: StartGatewayOptions): Promise<OtlpExport> {
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

/** Starts the upstreams, the request handler and the listener: everything `gateway start` runs. */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
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
  const serve = exchangeServer(ctx);
  let running: RunningServer;
  let otlp: OtlpExport | undefined;
  try {
    if (options.otlp) otlp = await exportOverOtlp(ctx, options.otlp, options);
    // Budgets are checked from the first request: what the log says was spent this month is read before serving.
    if (ctx.spend.budgets.length > 0) await ctx.spend.ledger();
    // Node's own request timeout is only the backstop: the handler's body deadline answers first, in the family's shape.
    running = await listenHandler(createGatewayHandler(ctx, serve), {
      host: options.config.host,
      port: options.config.port,
      requestTimeoutMs: bodyTimeoutMs + 30_000,
      onInternalError: ctx.onInternalError,
    });
  } catch (error) {
    await upstreams.close();
    await otlp?.close();
    throw error;
  }
  const sockets = handleUpgrades(ctx, serve, options.onUpgradeRefused);
  running.server.on("upgrade", sockets.upgrade);
  for (const host of ["127.0.0.1", "localhost"]) ctx.allowedOrigins.add(`http://${host}:${running.port}`);

  let closing: Promise<void> | undefined;
  async function shutdown(graceMs: number): Promise<void> {
    const closed = running.close();
    // A dashboard's live stream never ends by itself; it must not hold the drain open.
    ctx.feed.close();
    await ctx.inflight.idle(graceMs);
    ctx.inflight.stopAll(upstreamFailed("The gateway is shutting down; the request was cut short. Retry it."));
    await ctx.inflight.idle(1_000);
    sockets.close();
    running.server.closeAllConnections();
    await closed;
    await upstreams.close();
    // The last spans and a last metrics export go out now (each exporter gives up after its timeout).
    await otlp?.close();
  }

  return {
    url: running.url,
    port: running.port,
    upstream: upstreams.default.label,
    inflight: () => ctx.inflight.size(),
    close: (graceMs = 10_000) => (closing ??= shutdown(graceMs)),
  };
}
