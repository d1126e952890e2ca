import { randomBytes } from "node:crypto";
import { createModelAliases, type ModelAliases } from "../aliases/model-aliases.js";
import { isLoopbackHost, type GatewayConfig } from "../config/index.js";
import type { Segments } from "../families/index.js";
import type { RequestSink } from "../request-log/record.js";
import type { UpstreamClient } from "../upstream/upstream-client.js";
import { createInflight, type Inflight, type Occupancy } from "./inflight.js";
import { createKeyCheck } from "./local-auth.js";
import { createCaptureStore, type CaptureStore } from "../dashboard/capture-store.js";
import { createDashboard, type Dashboard } from "../dashboard/dashboard-routes.js";
import { createLiveFeed, type LiveFeed } from "../dashboard/live-feed.js";
import { fanOut } from "../request-log/record.js";

export interface GatewayContextOptions {
  config: GatewayConfig;
  client: UpstreamClient;
  localKey: string;
  /** Package version, for `/health`. */
  version: string;
  onRequest?: RequestSink | undefined;
  /** Put the redacted request and reply headers in each record (`gateway start --verbose`). */
  recordHeaders?: boolean | undefined;
  /** A request body must arrive within this time, else 408 (slow-loris). */
  bodyTimeoutMs: number;
  /** Told about an error the gateway did not expect (a bug; the client gets a 502). @default console.error */
  onInternalError?: ((error: unknown) => void) | undefined;
  /** Told when the gateway goes from no request open to one, and back. */
  occupancy?: Occupancy | undefined;
}

/**
 * Everything one running gateway shares between its requests, made once by `startGateway` and passed down:
 * no module state, so two gateways in one process never share a counter, a registry or a key.
 */
export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly client: UpstreamClient;
  readonly version: string;
  readonly segments: Segments;
  readonly keyMatches: (presented: string | undefined) => boolean;
  /** True when bound beyond loopback: the Host guard stands aside. */
  readonly anyHost: boolean;
  /** `--cors` origins, plus the gateway's own origins once it listens (its dashboard). */
  readonly allowedOrigins: Set<string>;
  readonly aliases: ModelAliases;
  /** Every finished request's record: the caller's sinks and the dashboard's live feed. */
  readonly onRequest: RequestSink;
  readonly recordHeaders: boolean;
  readonly feed: LiveFeed;
  readonly captures: CaptureStore;
  readonly dashboard: Dashboard;
  readonly bodyTimeoutMs: number;
  readonly inflight: Inflight;
  readonly onInternalError: (error: unknown) => void;
  /** A new request id: random per gateway, so ids of different runs in one log never collide. */
  nextRequestId(): string;
}

export function createGatewayContext(options: GatewayContextOptions): GatewayContext {
  const { config } = options;
  const runId = randomBytes(6).toString("hex");
  let count = 0;
  const nextRequestId = () => `req_${runId}${(++count).toString(36).padStart(8, "0")}`;
  const keyMatches = createKeyCheck(options.localKey);
  const feed = createLiveFeed();
  const captures = createCaptureStore(config.capture);
  return {
    config,
    client: options.client,
    version: options.version,
    segments: { messages: config.messagesSegment, gemini: config.geminiSegment },
    keyMatches,
    anyHost: !isLoopbackHost(config.host),
    allowedOrigins: new Set(config.cors),
    aliases: createModelAliases(config.models),
    onRequest: fanOut([...(options.onRequest ? [options.onRequest] : []), feed.sink])!,
    recordHeaders: options.recordHeaders === true,
    feed,
    captures,
    dashboard: createDashboard({ feed, captures, keyMatches, nextRequestId, version: options.version, upstream: options.client.target.label }),
    bodyTimeoutMs: options.bodyTimeoutMs,
    inflight: createInflight(options.occupancy),
    onInternalError: options.onInternalError ?? ((error) => console.error(error)),
    nextRequestId,
  };
}
