import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { consola } from "consola";
import type { GatewayConfig } from "../config/index.js";
import { GatewayError, badRequest, notFound, unauthorized, upstreamFailed } from "../errors.js";
import { chatFamily, type Family } from "../families/index.js";
import { clientResponseHeaders, upstreamRequestHeaders } from "../upstream/header-policy.js";
import { pipeBody } from "../upstream/pipe-body.js";
import type { UpstreamClient, UpstreamReply } from "../upstream/upstream-client.js";
import { checkBody, type BodyFacts } from "./check-body.js";
import { bindsBeyondLoopback, checkHost, checkOrigin, corsHeaders, preflightHeaders } from "./guards.js";
import { createKeyCheck } from "./local-auth.js";
import { BODY_DEADLINE_MS, readBody } from "./read-body.js";
import { sendError } from "./render-error.js";
import type { RequestRecord, RequestSink } from "../request-log/record.js";
import { redactHeaders } from "./redact-headers.js";
import { resolveRoute, type Route } from "./resolve-route.js";
import { createUsageObserver, type Usage } from "./usage-observer.js";

export interface GatewayHandlerOptions {
  config: GatewayConfig;
  client: UpstreamClient;
  localKey: string;
  /** Package version, for `/health`. */
  version: string;
  onRequest?: RequestSink;
  /** Put the redacted request and reply headers in each record (`gateway start --verbose`). */
  recordHeaders?: boolean;
  /** A request body must arrive within this time, else 408 (slow-loris). @default 60_000 */
  bodyTimeoutMs?: number;
}

/** Headers that keep intermediaries (and some clients) from buffering an event stream. */
const EVENT_STREAM_HEADERS = { "cache-control": "no-cache", "x-accel-buffering": "no" };

const NO_BODY_METHODS = new Set(["GET", "HEAD"]);

/** Per-request state, gathered for the log record. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** Made on first use: only errors and request records need one, not the proxied hot path. */
  requestId: string | undefined;
  started: number;
  family: Family;
  cors: Record<string, string>;
  facts: BodyFacts | undefined;
  firstByteAt: number | undefined;
  /** The upstream's reply headers, kept only when records carry headers. */
  replyHeaders: UpstreamReply["headers"] | undefined;
}

/** A header's value when it was sent once; repeated values are not trusted for content type or encoding. */
const singleHeader = (value: string | string[] | undefined): string | undefined => (typeof value === "string" ? value : undefined);

/** Paths with nothing WHATWG parsing would change: no dot segments, escapes, backslashes or odd characters. */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~-]+)+$/;

/** Random per process, so ids from different runs in one log never collide; a counter makes each unique within it. */
const RUN_ID = randomBytes(6).toString("hex");
let requestCount = 0;

function requestIdOf(x: Exchange): string {
  return (x.requestId ??= `req_${RUN_ID}${(++requestCount).toString(36).padStart(8, "0")}`);
}

function withoutQuery(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function pathnameOf(url: string): { pathname: string; query: string } {
  const rawPath = withoutQuery(url);
  const query = url.slice(rawPath.length);
  if (PLAIN_PATH.test(rawPath)) return { pathname: rawPath, query };
  // WHATWG parsing resolves "." and ".." segments, including their percent-encoded forms.
  return { pathname: new URL(`http://localhost${rawPath}`).pathname, query };
}

/**
 * The gateway's request flow as a plain Node handler: guards in SPEC order, routing, local checks, then the
 * upstream reply piped straight into the Node response (no web-stream conversion per chunk).
 */
export function createGatewayHandler(options: GatewayHandlerOptions) {
  const { config, client, version, onRequest, recordHeaders = false, bodyTimeoutMs = BODY_DEADLINE_MS } = options;
  const keyMatches = createKeyCheck(options.localKey);
  const anyHost = bindsBeyondLoopback(config.host);
  const allowedOrigins: ReadonlySet<string> = new Set(config.cors);
  const active = new Set<UpstreamReply>();

  function record(x: Exchange, status: number, outcome: RequestRecord["outcome"], path: string, usage?: Usage): void {
    onRequest?.({
      time: new Date().toISOString(),
      requestId: requestIdOf(x),
      method: x.req.method ?? "GET",
      path,
      family: x.family.name,
      model: x.facts?.model,
      status,
      durationMs: performance.now() - x.started,
      ttfbMs: x.firstByteAt === undefined ? undefined : x.firstByteAt - x.started,
      inputTokens: usage?.inputTokens,
      outputTokens: usage?.outputTokens,
      cacheReadTokens: usage?.cacheReadTokens,
      cacheWriteTokens: usage?.cacheWriteTokens,
      userAgent: x.req.headers["user-agent"],
      outcome,
      headers: recordHeaders ? { request: redactHeaders(x.req.headers), reply: redactHeaders(x.replyHeaders ?? {}) } : undefined,
    });
  }

  function fail(x: Exchange, error: GatewayError, path: string): void {
    sendError(x.res, x.family, error, requestIdOf(x), x.cors);
    record(x, error.status, "local_error", path);
  }

  async function forward(x: Exchange, route: Route, query: string, path: string): Promise<void> {
    const { req, res } = x;
    const method = req.method ?? "GET";
    if (!keyMatches(x.family.presentedKey(req.headers))) {
      const header = x.family.name === "chat" ? "Authorization: Bearer <key>" : "x-api-key: <key>";
      return fail(x, unauthorized(`Missing or wrong local key. Send ${header} with the key printed by \`gateway env\`.`), path);
    }
    const versionHeader = req.headers["anthropic-version"] ?? req.headers["vendor-version"];
    const clientVersion = Array.isArray(versionHeader) ? versionHeader[0] : versionHeader;
    if (x.family.name === "messages" && !clientVersion) {
      return fail(x, badRequest("Missing anthropic-version header. Send anthropic-version: 2023-06-01 (any version is accepted).", { param: "anthropic-version", code: "missing_version" }), path);
    }

    const abort = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) abort.abort();
    });

    let body: Buffer | undefined;
    try {
      const hasBody = !NO_BODY_METHODS.has(method) || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
      body = hasBody ? await readBody(req, config.maxBodyBytes, bodyTimeoutMs) : undefined;
      x.facts = checkBody(route.endpoint, req.headers["content-type"], body ?? Buffer.alloc(0));
    } catch (error) {
      if (abort.signal.aborted) return record(x, 499, "client_closed", path);
      // The rest of a slow body is not worth waiting for: answer, then close the connection.
      if ((error as GatewayError).status === 408) res.setHeader("connection", "close");
      return fail(x, error as GatewayError, path);
    }

    let reply: UpstreamReply;
    try {
      reply = await client.send({
        family: x.family,
        method,
        path: `${route.upstreamPath}${query}`,
        headers: upstreamRequestHeaders(req.rawHeaders, req.headers.connection),
        version: clientVersion,
        body,
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return record(x, 499, "client_closed", path);
      if (error instanceof GatewayError) return fail(x, error, path);
      consola.error(error);
      return fail(x, upstreamFailed("The gateway failed to forward the request; see its log."), path);
    }

    const contentType = singleHeader(reply.headers["content-type"]);
    const isEventStream = contentType?.startsWith("text/event-stream") === true;
    res.writeHead(reply.status, {
      ...clientResponseHeaders(reply.headers),
      ...(isEventStream ? EVENT_STREAM_HEADERS : undefined),
      ...x.cors,
    });
    // Headers leave with the first body chunk, in one write instead of two. An event stream whose first event is
    // slow still shows its headers to the client one loop turn later.
    if (isEventStream) {
      setImmediate(() => {
        if (x.firstByteAt === undefined && !res.writableEnded) res.flushHeaders();
      });
    }
    active.add(reply);
    if (recordHeaders) x.replyHeaders = reply.headers;
    const usage = onRequest ? createUsageObserver(contentType, singleHeader(reply.headers["content-encoding"])) : undefined;
    const outcome = await pipeBody(reply.body, res, {
      family: x.family,
      isEventStream,
      onChunk: (chunk) => {
        x.firstByteAt ??= performance.now();
        usage?.observe(chunk);
      },
    });
    active.delete(reply);
    record(x, reply.status, outcome, path, usage?.result());
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const x: Exchange = {
      req,
      res,
      requestId: undefined,
      started: performance.now(),
      family: chatFamily,
      cors: {},
      facts: undefined,
      firstByteAt: undefined,
      replyHeaders: undefined,
    };
    const url = req.url ?? "/";
    const hostError = checkHost(req.headers, anyHost) ?? checkOrigin(req.headers, allowedOrigins);
    if (hostError) return fail(x, hostError, withoutQuery(url));

    const origin = req.headers.origin;
    if (origin !== undefined) {
      x.cors = corsHeaders(origin);
      if (req.method === "OPTIONS") {
        res.writeHead(204, preflightHeaders(origin, req.headers["access-control-request-headers"]));
        res.end();
        return record(x, 204, "complete", withoutQuery(url));
      }
    }

    const { pathname, query } = pathnameOf(url);
    const resolution = resolveRoute(req.method ?? "GET", pathname, req.headers, config.messagesSegment);
    switch (resolution.kind) {
      case "health": {
        const body = JSON.stringify({ status: "ok", version, upstream: client.target.label });
        res.writeHead(200, { ...x.cors, "content-type": "application/json", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
        return void res.end(req.method === "HEAD" ? undefined : body);
      }
      case "preconnect":
        res.writeHead(200, x.cors);
        return void res.end();
      case "not_found":
        return fail(x, notFound(`Nothing is served at ${req.method} ${pathname}. Use /v1/... (OpenAI style) or /${config.messagesSegment}/v1/... (Anthropic style).`), pathname);
      case "forward":
        x.family = resolution.route.family;
        return forward(x, resolution.route, query, pathname);
    }
  }

  /** Ends every reply still streaming with the family's error event (graceful shutdown ran out of time). */
  function abortActive(): number {
    const shuttingDown = upstreamFailed("The gateway is shutting down; the reply was cut short. Retry the request.");
    for (const reply of active) reply.body.destroy(shuttingDown);
    return active.size;
  }

  return { handle, abortActive, activeCount: () => active.size };
}

export type GatewayHandler = ReturnType<typeof createGatewayHandler>;
