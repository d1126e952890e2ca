import type { GatewayConfig } from "../config/index.js";
import type { KeySource } from "../upstream/key-source.js";
import { openUpstream } from "../upstream/open-upstream.js";
import { createApp } from "./create-app.js";
import { createGatewayHandler } from "./gateway-handler.js";
import { listenApp, type RunningServer } from "./listen.js";
import { BODY_DEADLINE_MS } from "./read-body.js";
import { refuseUpgrade } from "./refuse-upgrade.js";
import type { RequestSink } from "../request-log/record.js";

export interface StartGatewayOptions {
  config: GatewayConfig;
  keySource: KeySource;
  localKey: string;
  version: string;
  onRequest?: RequestSink;
  /** Put redacted headers in each request record. */
  recordHeaders?: boolean;
  /** A request body must arrive within this time, else 408. @default 60_000 */
  bodyTimeoutMs?: number;
}

/** A running local gateway. */
export interface Gateway {
  /** `http://127.0.0.1:8484` */
  url: string;
  port: number;
  /** `echo` or the upstream origin. */
  upstream: string;
  /**
   * Stops accepting, lets in-flight replies finish for up to `graceMs`, then ends the rest with the family's
   * error event. Safe to call twice.
   */
  close(graceMs?: number): Promise<void>;
}

/** Starts the upstream client, the h3 app and the listener: everything `gateway start` runs. */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  const upstream = await openUpstream(options.config, options.keySource);
  const handler = createGatewayHandler({
    config: options.config,
    client: upstream.client,
    localKey: options.localKey,
    version: options.version,
    onRequest: options.onRequest,
    recordHeaders: options.recordHeaders,
    bodyTimeoutMs: options.bodyTimeoutMs,
  });
  let running: RunningServer;
  try {
    // Node's own request timeout is only the backstop: the handler's body deadline answers first, in the family's shape.
    const requestTimeoutMs = (options.bodyTimeoutMs ?? BODY_DEADLINE_MS) + 30_000;
    running = await listenApp(createApp(handler), { host: options.config.host, port: options.config.port, requestTimeoutMs });
  } catch (error) {
    await upstream.close();
    throw error;
  }
  running.server.on("upgrade", refuseUpgrade);
  let closing: Promise<void> | undefined;
  async function shutdown(graceMs: number): Promise<void> {
    const closed = running.close();
    const deadline = Date.now() + graceMs;
    while (handler.activeCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    handler.abortActive();
    running.server.closeIdleConnections();
    await closed;
    await upstream.close();
  }
  return {
    url: running.url,
    port: running.port,
    upstream: upstream.client.target.label,
    close: (graceMs = 10_000) => (closing ??= shutdown(graceMs)),
  };
}
