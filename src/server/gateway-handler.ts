import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayError, notFound } from "../errors/index.js";
import { createExchange, type Exchange } from "./exchange.js";
import type { GatewayContext } from "./gateway-context.js";
import { redactHeaders } from "./redact-headers.js";
import { sendError } from "./render-error.js";
import { authenticate } from "./stages/authenticate.js";
import { checkBody } from "./stages/check-body.js";
import { exchangeUpstream } from "./stages/exchange-upstream.js";
import { checkHost, checkOrigin, corsHeaders, preflightHeaders, repeatedHeader } from "./stages/guard.js";
import { readBody } from "./stages/read-body.js";
import { record, requestIdOf } from "./stages/record.js";
import { relay } from "./stages/relay.js";
import { resolve } from "./stages/resolve.js";
import { rewriteModel } from "./stages/rewrite-model.js";

const NO_BODY_METHODS = new Set(["GET", "HEAD"]);

function fail(x: Exchange, ctx: GatewayContext, error: GatewayError): void {
  sendError(x.res, x.family, error, requestIdOf(x, ctx), x.cors);
  record(x, ctx, error.status, "local_error", { error });
}

function answerHealth(x: Exchange, ctx: GatewayContext): void {
  const body = JSON.stringify({ status: "ok", version: ctx.version, upstream: ctx.client.target.label, pid: process.pid });
  x.res.writeHead(200, { ...x.cors, "content-type": "application/json", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  x.res.end(x.req.method === "HEAD" ? undefined : body);
}

function hasBody(req: IncomingMessage): boolean {
  return !NO_BODY_METHODS.has(req.method ?? "GET") || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

/** Stages 5 to 10 of a request that passed the guards and names a family's path. */
async function forward(x: Exchange, ctx: GatewayContext): Promise<void> {
  const { req, res } = x;
  const refused = authenticate(x, ctx);
  if (refused) return fail(x, ctx, refused);
  let parsed: Record<string, unknown> | undefined;
  try {
    x.body = hasBody(req) ? await readBody(req, ctx.config.maxBodyBytes, ctx.bodyTimeoutMs) : undefined;
    parsed = checkBody(x.claim!, req.headers["content-type"], x.body);
  } catch (error) {
    if (x.abort.signal.aborted) return record(x, ctx, 499, "client_closed");
    // The rest of a slow body is not worth waiting for: answer, then close the connection.
    if ((error as GatewayError).status === 408) res.setHeader("connection", "close");
    return fail(x, ctx, error as GatewayError);
  }
  rewriteModel(x, ctx, parsed);
  x.capture = ctx.captures.start(() => ({
    method: req.method ?? "GET",
    path: `${x.path}${x.family.upstreamQuery(x.query)}`,
    headers: redactHeaders(req.headers),
    body: x.body?.toString("utf8"),
  }));
  const failed = await exchangeUpstream(x, ctx);
  if (failed) return fail(x, ctx, failed);
  if (!x.reply) return record(x, ctx, 499, "client_closed");
  const { outcome, usage } = await relay(x, ctx);
  record(x, ctx, x.reply.status, outcome, { usage });
}

/**
 * The request flow of SPEC section 3 as a short list of stages (each in `stages/`): resolve the family, guard
 * Host and Origin, answer what needs no key, then authenticate, read and check the body, rewrite an aliased model,
 * exchange with the upstream, relay the reply and record it. Every open request is in the in-flight registry
 * from accept to last byte, so a shutdown can end each one in its family's shape.
 */
export function createGatewayHandler(ctx: GatewayContext) {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const x = createExchange(req, res);
    const leave = ctx.inflight.enter(x);
    // One listener ends both: the upstream call of a client that went away, and the request's time in flight.
    res.once("close", () => {
      if (!res.writableFinished) x.abort.abort();
      leave();
    });
    const resolution = resolve(x, ctx);
    x.repeatedHeader = repeatedHeader(req.rawHeaders);
    const guardError = checkHost(req, ctx.anyHost, x.repeatedHeader) ?? checkOrigin(req, ctx.allowedOrigins);
    if (guardError) return fail(x, ctx, guardError);
    const origin = req.headers.origin;
    if (origin !== undefined) {
      x.cors = corsHeaders(origin);
      if (req.method === "OPTIONS") {
        res.writeHead(204, preflightHeaders(origin, req.headers["access-control-request-headers"]));
        res.end();
        return record(x, ctx, 204, "complete");
      }
    }
    switch (resolution) {
      case "health":
        return answerHealth(x, ctx);
      case "dashboard":
        return await ctx.dashboard.handle(req, res, x.path);
      case "preconnect":
        res.writeHead(200, x.cors);
        return void res.end();
      case "not_found":
        return fail(x, ctx, notFound(`Nothing is served at ${req.method} ${x.path}. ${basesHint(ctx)}`));
      case "forward":
        return forward(x, ctx);
    }
  }
  return { handle };
}

function basesHint(ctx: GatewayContext): string {
  return `Use /v1/... (OpenAI style), /${ctx.segments.messages}/v1/... (Anthropic style) or /${ctx.segments.gemini}/v1beta/... (Gemini style).`;
}

export type GatewayHandler = ReturnType<typeof createGatewayHandler>;
