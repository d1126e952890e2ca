import { randomBytes } from "node:crypto";
import { isLoopbackHost, shownKind, type GatewayConfig } from "../config/index.js";
import type { Secrets } from "../secrets.js";
import { createCaptureStore, type CaptureStore } from "../dashboard/capture-store.js";
import { createLiveFeed, type LiveFeed } from "../dashboard/live-feed.js";
import type { Segments } from "../formats/index.js";
import { createSpendTracker, type SpendTracker } from "../budgets/spend-tracker.js";
import { loadPricer, type Pricer } from "../pricing/index.js";
import { fanOut, type RequestSink } from "../request-log/record.js";
import { keyFingerprint } from "../running/key-fingerprint.js";
import { createModelAliases, type ModelAliases } from "../routing/model-aliases.js";
import { createRouter, type Router } from "../routing/router.js";
import { refreshCatalogs, useCatalogs, type CatalogInUse } from "../team/team-catalogs.js";
import type { ReasoningSeal } from "../translate/index.js";
import { keyStates } from "../upstream/key-states.js";
import type { UpstreamSet } from "../upstream/upstream-set.js";
import type { AppHandler, AppOptions } from "./app.js";
import { createInflight, type Inflight, type Occupancy } from "./inflight.js";
import { createKeyCheck } from "./local-auth.js";
import { gaugeReadings, type GaugeReadings } from "../telemetry/gauge-readings.js";
import { createGatewayMetrics, type GatewayMetrics } from "../telemetry/gateway-metrics.js";
import { RequestObserver } from "../telemetry/observations.js";
import type { RequestTracer } from "../telemetry/request-tracer.js";

/** A translated messages stream starts the client's stream when the upstream has not answered within this time (SPEC 10, Details). */
export const EARLY_START_MS = 10_000;

/** While the upstream is silent, a translated stream sends a keep-alive at least this often (SPEC 10 rule 3: a `ping` every 15 s). */
export const KEEP_ALIVE_MS = 15_000;

export interface GatewayContextOptions {
  config: GatewayConfig;
  upstreams: UpstreamSet;
  localKey: string;
  /** The keys this gateway handles (its local key, the upstream keys it sends): kept out of every capture. */
  secrets: Secrets;
  seal: ReasoningSeal;
  /** Package version, for `/health`. */
  version: string;
  onRequest?: RequestSink | undefined;
  /** Put the redacted request and reply headers in each record (`gateway start --verbose`). */
  recordHeaders?: boolean | undefined;
  /** A request body must arrive within this time, else 408 (slow-loris). */
  bodyTimeoutMs: number;
  /** A translated messages stream whose upstream is silent this long starts anyway. @default EARLY_START_MS */
  earlyStartMs?: number | undefined;
  /** A translated stream that has sent the client nothing this long sends a keep-alive. @default KEEP_ALIVE_MS */
  keepAliveMs?: number | undefined;
  /** Told about an error the gateway did not expect (a bug; the client gets a 500). @default console.error */
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
  readonly upstreams: UpstreamSet;
  readonly seal: ReasoningSeal;
  readonly version: string;
  /** Where the families live locally: the top-level segments. */
  readonly segments: Segments;
  readonly keyMatches: (presented: string | undefined) => boolean;
  /** An upstream has `key: "client"`: a request may then carry a credential of its own instead of the local key (SPEC 11). */
  readonly ownLogins: boolean;
  /** True when bound beyond loopback: the Host guard stands aside. */
  readonly anyHost: boolean;
  /** `--cors` origins, plus the gateway's own origins once it listens (its dashboard). */
  readonly allowedOrigins: Set<string>;
  readonly aliases: ModelAliases;
  /** Decides each request's upstream and model (the aliases applied); made again when the team catalogs are read again. */
  router: Router;
  /** Every finished request's record: the caller's sinks, the dashboard's live feed and the spend tracker. */
  readonly onRequest: RequestSink;
  /** What has been spent today and this month, in all, per upstream and per session; the budgets checked against it (SPEC 11). */
  readonly spend: SpendTracker;
  readonly recordHeaders: boolean;
  readonly feed: LiveFeed;
  readonly captures: CaptureStore;
  /** The keys this gateway handles: hidden in captures and in the replies it rewrites. */
  readonly secrets: Secrets;
  /** What `/health` answers: its status, version, the default upstream, pid, every upstream and the key's fingerprint. */
  health(): Record<string, unknown>;
  /** The dashboard (an h3 app), loaded on its first request. */
  readonly app: AppHandler;
  readonly bodyTimeoutMs: number;
  readonly earlyStartMs: number;
  readonly keepAliveMs: number;
  readonly inflight: Inflight;
  /** `GET /metrics` and the OTLP meter's source (SPEC 12): fed every record. */
  readonly metrics: GatewayMetrics;
  /** What the gauges read when collected: in-flight requests, budgets, resting keys. */
  readonly readings: GaugeReadings;
  /** A span per request when traces go over OTLP; set once by `startGateway`, before it listens. */
  tracer: RequestTracer | undefined;
  /** The upstreams' price table, loaded on first use (shared by the dashboard, budgets and telemetry). */
  readonly pricing: () => Promise<Pricer>;
  readonly onInternalError: (error: unknown) => void;
  /** A new request id: random per gateway, so ids of different runs in one log never collide. */
  nextRequestId(): string;
}

/** What `/health` says of the upstreams: names, kinds, origins (never a path or a key) and the formats in effect. */
function upstreamsHealth(upstreams: UpstreamSet) {
  return upstreams.all.map((upstream) => ({ name: upstream.name, kind: shownKind(upstream.config), url: upstream.label, formats: upstream.config.formats }));
}

/**
 * The dashboard (h3 and its routes), loaded on its first request: a one-off `gateway chat` never asks for it, and
 * `gateway start` answers `/health` without it (h3 and the Web \`Response\` it makes Node load took 40-50 ms of the
 * first `/health`, issue 52).
 */
function loadedOnFirstRequest(options: AppOptions): AppHandler {
  let app: Promise<AppHandler> | undefined;
  return async (req, res) => (await (app ??= import("./app.js").then(({ createApp }) => createApp(options))))(req, res);
}

export function createGatewayContext(options: GatewayContextOptions): GatewayContext {
  const { config, upstreams } = options;
  const runId = randomBytes(6).toString("hex");
  let count = 0;
  const nextRequestId = () => `req_${runId}${(++count).toString(36).padStart(8, "0")}`;
  const keyMatches = createKeyCheck(options.localKey);
  const feed = createLiveFeed();
  const captures = createCaptureStore(config.capture, (text) => options.secrets.redact(text));
  const onInternalError = options.onInternalError ?? ((error: unknown) => console.error(error));
  const upstream = upstreams.default.label;
  const aliases = createModelAliases(config.models);
  // The price table loads on first use (about 35 ms): with budgets, at start; else when the dashboard or the status line asks.
  let pricer: Promise<Pricer> | undefined;
  const pricing = () => (pricer ??= loadPricer(config));
  const spend = createSpendTracker({ config, pricer: pricing, recent: feed.recent });
  const inflight = createInflight(options.occupancy);
  const readings = gaugeReadings(upstreams, spend, () => inflight.size());
  const metrics = createGatewayMetrics({ observer: new RequestObserver((name) => upstreams.named(name)?.config.kind), pricer: pricing, readings });
  const routerNow = () => createRouter({ upstreams, aliases, routes: config.routes, seal: options.seal, catalogIds: (upstream) => upstream.catalog()?.models.map((model) => model.id) ?? [], windowOf: (upstream, model) => upstream.contextWindow(model) });
  /** `gateway catalog --refresh` to a running gateway: the catalogs read again, used, and routed by from the next request. */
  async function refreshTeam(): Promise<Record<string, CatalogInUse>> {
    const read = await refreshCatalogs(upstreams.all, config.stateDir);
    useCatalogs(upstreams.all, read);
    context.router = routerNow();
    return Object.fromEntries([...read].map(([name, use]) => [name, { ...use, failure: use.failure && options.secrets.redact(use.failure) }]));
  }
  const context: GatewayContext = {
    config,
    upstreams,
    seal: options.seal,
    version: options.version,
    segments: { messages: config.messagesSegment, gemini: config.geminiSegment },
    keyMatches,
    ownLogins: config.upstreams.some((entry) => entry.key.kind === "client"),
    anyHost: !isLoopbackHost(config.host),
    allowedOrigins: new Set(config.cors),
    aliases,
    router: routerNow(),
    onRequest: fanOut([...(options.onRequest ? [options.onRequest] : []), feed.sink, spend.sink, metrics.sink])!,
    spend,
    recordHeaders: options.recordHeaders === true,
    feed,
    captures,
    secrets: options.secrets,
    app: loadedOnFirstRequest({
      feed,
      captures,
      keyMatches,
      version: options.version,
      upstream,
      pricer: pricing,
      spend,
      keyStates: () => keyStates(upstreams),
      teamBudgets: () => upstreams.all.flatMap((upstream) => {
        const budget = upstream.catalog()?.budget;
        return budget ? [{ upstream: upstream.name, ...budget }] : [];
      }),
      refreshCatalogs: refreshTeam,
      nextRequestId,
      onInternalError,
    }),
    health: () => ({ status: "ok", version: options.version, upstream, pid: process.pid, upstreams: upstreamsHealth(upstreams), keyFingerprint: keyFingerprint(options.localKey) }),
    bodyTimeoutMs: options.bodyTimeoutMs,
    earlyStartMs: options.earlyStartMs ?? EARLY_START_MS,
    keepAliveMs: options.keepAliveMs ?? KEEP_ALIVE_MS,
    inflight,
    metrics,
    readings,
    tracer: undefined,
    pricing,
    onInternalError,
    nextRequestId,
  };
  return context;
}
