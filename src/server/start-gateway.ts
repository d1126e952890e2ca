import { upstreamFailed } from "../errors/index.js";
import { compileWasmForServing } from "../upstream/create-dispatcher.js";
import { createGatewayHandler } from "./gateway-handler.js";
import { handleUpgrades } from "./responses-socket/upgrade.js";
import { listenHandler, type RunningServer } from "./listen.js";
import { openRequestPath, type RequestPathOptions } from "./request-path.js";

export interface StartGatewayOptions extends RequestPathOptions {
  /** Told of each WebSocket upgrade refused (method, path and the status answered), for the server log. */
  onUpgradeRefused?: (method: string, path: string, status: number) => void;
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

/** Starts the request path and the listener in front of it: everything `gateway start` runs. */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  compileWasmForServing();
  const path = await openRequestPath(options);
  const { ctx, serve } = path;
  let running: RunningServer;
  try {
    // Node's own request timeout is only the backstop: the handler's body deadline answers first, in the family's shape.
    running = await listenHandler(createGatewayHandler(ctx, serve), {
      host: options.config.host,
      port: options.config.port,
      requestTimeoutMs: ctx.bodyTimeoutMs + 30_000,
      onInternalError: ctx.onInternalError,
    });
  } catch (error) {
    await path.close();
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
    await path.close();
  }

  return {
    url: running.url,
    port: running.port,
    upstream: ctx.upstreams.default.label,
    inflight: () => ctx.inflight.size(),
    close: (graceMs = 10_000) => (closing ??= shutdown(graceMs)),
  };
}
