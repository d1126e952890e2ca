import type { GatewayConfig } from "../config/index.js";
import { upstreamFailed } from "../errors/index.js";
import type { RequestSink } from "../request-log/record.js";
import type { ReasoningSeal } from "../translate/index.js";
import { openUpstreams, type KeySourceFor } from "../upstream/upstream-set.js";
import { createGatewayContext } from "./gateway-context.js";
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

/** Starts the upstreams, the request handler and the listener: everything `gateway start` runs. */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  // The keys this gateway handles, hidden in everything it keeps (captures): its local key, and each upstream key it sends.
  const secrets = new Secrets();
  secrets.remember(options.localKey);
  const upstreams = await openUpstreams(options.config, options.keySourceFor, secrets);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_DEADLINE_MS;
  const ctx = createGatewayContext({ ...options, upstreams, bodyTimeoutMs, secrets });
  const serve = exchangeServer(ctx);
  let running: RunningServer;
  try {
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
  }

  return {
    url: running.url,
    port: running.port,
    upstream: upstreams.default.label,
    inflight: () => ctx.inflight.size(),
    close: (graceMs = 10_000) => (closing ??= shutdown(graceMs)),
  };
}
