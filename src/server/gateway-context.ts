import { randomBytes } from "node:crypto";
import { createModelAliases, type ModelAliases } from "../aliases/model-aliases.js";
import type { GatewayConfig } from "../config/index.js";
import type { Segments } from "../families/index.js";
import type { RequestSink } from "../request-log/record.js";
import type { UpstreamClient } from "../upstream/upstream-client.js";
import { createInflight, type Inflight } from "./inflight.js";
import { createKeyCheck } from "./local-auth.js";
import { isLoopbackHost } from "../config/index.js";

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
  readonly onRequest: RequestSink | undefined;
  readonly recordHeaders: boolean;
  readonly bodyTimeoutMs: number;
  readonly inflight: Inflight;
  /** A new request id: random per gateway, so ids of different runs in one log never collide. */
  nextRequestId(): string;
}

export function createGatewayContext(options: GatewayContextOptions): GatewayContext {
  const { config } = options;
  const runId = randomBytes(6).toString("hex");
  let count = 0;
  return {
    config,
    client: options.client,
    version: options.version,
    segments: { messages: config.messagesSegment, gemini: config.geminiSegment },
    keyMatches: createKeyCheck(options.localKey),
    anyHost: !isLoopbackHost(config.host),
    allowedOrigins: new Set(config.cors),
    aliases: createModelAliases(config.models),
    onRequest: options.onRequest,
    recordHeaders: options.recordHeaders === true,
    bodyTimeoutMs: options.bodyTimeoutMs,
    inflight: createInflight(),
    nextRequestId: () => `req_${runId}${(++count).toString(36).padStart(8, "0")}`,
  };
}
