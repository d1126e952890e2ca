import type { IncomingMessage, ServerResponse } from "node:http";
import { notFound, toApiError } from "../errors/index.js";
import { chatFamily, type Family, type Format } from "../formats/index.js";
import type { ClientRequest } from "../request/client-request.js";
import { extraModelIds } from "../routing/model-reach.js";
import { clientLeft, createExchange, headOf, type Exchange } from "./exchange.js";
import type { GatewayContext } from "./gateway-context.js";
import { ownCredentialValues } from "../credential-headers.js";
import { redactHeaders } from "./redact-headers.js";
import { answerMetrics } from "./reply/metrics.js";
import { answerModelList } from "./reply/model-list.js";
import { sendError } from "./reply/send-error.js";
import { sendEmpty, sendJson } from "./reply/send-json.js";
import { HttpSink } from "./reply/sink.js";
import { authenticate, withoutLocalKey } from "./stages/authenticate.js";
import { forward } from "./stages/forward.js";
import { checkHost, checkOrigin, corsHeaders, preflightHeaders, repeatedHeader } from "./stages/guard.js";
import { checkRequest, modelNamed, readRequestBody } from "./stages/read-request.js";
import { record, requestIdOf, upstreamOf, type Trail } from "./stages/record.js";
import { resolve, type Resolved } from "./stages/resolve.js";

/**
 * The error boundary: whatever a stage threw becomes one JSON answer in the client's family shape (a reply that has
 * started ends through its transform, never here), and the request's record says what happened. A request whose
 * client went away is only recorded.
 */
function answerError(x: Exchange, ctx: GatewayContext, family: Family, trail: Trail, error: unknown): void {
  if (clientLeft(x)) {
    trail.clientLeft = true;
    return;
  }
  sendError(x, family, toApiError(error, ctx.onInternalError), () => requestIdOf(x, ctx), upstreamOf(x, trail));
}

/** Whether some upstream does not serve `format` natively, so a route may translate a request in it. */
const mayTranslate = (ctx: GatewayContext, format: Format | undefined): boolean => format !== undefined && ctx.upstreams.all.some((upstream) => !upstream.serves(format));

/**
 * A request's body, however it came: node:http's stream (`readRequestBody`, the size limit and the deadline), or a
 * WebSocket message's bytes, already whole.
 */
export type BodySource = (maxBytes: number, deadlineMs: number) => Promise<Buffer | undefined>;

/** The node:http request and response, for what only HTTP serves: the gateway's own pages. */
interface HttpPair {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Steps 4 to 8 of the request path (docs/ARCHITECTURE.md), for a family's path: authenticate, read the body, route,
 * forward, deliver.
 */
async function proxy(x: Exchange, ctx: GatewayContext, resolved: Extract<Resolved, { kind: "proxy" }>, repeated: string | undefined, trail: Trail, readBody: BodySource): Promise<void> {
  const { headers } = x.head;
  const { endpoint } = resolved;
  trail.format = endpoint.format?.name;
  const credential = authenticate(endpoint.family, headers, resolved.query, repeated, ctx.keyMatches, ctx.ownLogins);
  const query = withoutLocalKey(resolved.query, ctx.keyMatches);
  // A credential of the client's own never enters a capture, even where an upstream echoes it (SPEC 11).
  if (credential === "own") for (const value of ownCredentialValues(headers, endpoint.family.auth.presentedKey(headers, query))) x.capture?.hide(value);
  const bytes = await readBody(ctx.config.maxBodyBytes, ctx.bodyTimeoutMs);
  // A body the checks refuse is what a user most wants to see: it is captured, and the model it names recorded.
  x.capture?.requestBody(bytes);
  let request: ClientRequest;
  try {
    request = checkRequest(headers, endpoint, query, bytes, mayTranslate(ctx, endpoint.format?.name), credential);
  } catch (error) {
    trail.model = modelNamed(endpoint, bytes);
    throw error;
  }
  trail.request = request;
  trail.model = request.model;
  if (endpoint.kind === "models") return answerModelList(x, ctx, request, extraModelIds(ctx.config, endpoint.family.name), endpoint, query);
  // A route is a promise only when a token condition needs the tokenizer; a plain one costs no turn of the loop.
  const routed = ctx.router.route(request);
  const route = routed instanceof Promise ? await routed : routed;
  trail.route = route;
  const forwarded = await forward(x, ctx, request, route);
  trail.forwarded = forwarded;
  switch (forwarded.kind) {
    case "answered":
      return forwarded.plan.transform.deliver(forwarded.reply);
    case "local":
      return forwarded.plan.count.answer();
    case "failed": {
      const { plan, error } = forwarded;
      // A reply that has started (a slow translated stream opened early) ends with the failure as its last event.
      if (plan?.call === undefined || !plan.transform.committed() || clientLeft(x)) throw error;
      return plan.transform.fail(toApiError(error, ctx.onInternalError));
    }
  }
}

/**
 * Steps 1 to 9 of the request path (docs/ARCHITECTURE.md).
 * Every request, in SPEC section 3's order: resolve the endpoint and its family before any check, guard Host and
 * Origin, answer preflights; `/health` is answered here, the dashboard goes to the h3 app, and model
 * traffic runs the proxy stages. A proxied request is in the in-flight registry from accept to last byte (so a
 * shutdown can end it in its family's shape). Every request gets exactly one record, written in the `finally`,
 * except what passed the guards to the gateway's own pages and pre-connects: they are not traffic.
 */
export function createGatewayHandler(ctx: GatewayContext, serve = exchangeServer(ctx)) {
  return function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return serve(createExchange(headOf(req), new HttpSink(res)), (maxBytes, deadlineMs) => readRequestBody(req, maxBytes, deadlineMs), { req, res });
  };
}

/**
 * The stages for one exchange, whatever carried it: `http` is there for a node:http request (the gateway's own pages
 * need it), absent for a WebSocket message (which only ever stands for a model call).
 */
export function exchangeServer(ctx: GatewayContext) {
  return async function serve(x: Exchange, readBody: BodySource, http?: HttpPair): Promise<void> {
    const { head, sink } = x;
    const resolved = resolve(head.method, head.url, head.headers, ctx.segments);
    const family = resolved.kind === "proxy" ? resolved.endpoint.family : chatFamily;
    const trail: Trail = { path: resolved.path, family: resolved.kind === "proxy" ? family.name : null, format: undefined, model: undefined, request: undefined, route: undefined, forwarded: undefined, clientLeft: false };
    const leave = resolved.kind === "proxy" ? ctx.inflight.enter(x) : undefined;
    if (ctx.tracer && resolved.kind === "proxy") x.span = ctx.tracer.start(head.headers);
    // One listener ends both: the upstream call of a client that went away, and the request's time in flight.
    sink.onceClose(() => {
      if (!sink.finished) x.abort.abort();
      leave?.();
    });
    let recorded = true;
    try {
      // Every recorded request reaches the capture decision, refusals included (a 401 is worth seeing). Inside the
      // boundary: whatever reading the request throws is an answer, never an unhandled rejection that ends the process.
      x.capture = ctx.captures.start(() => ({
        method: head.method,
        path: `${resolved.path}${family.auth.upstreamQuery(resolved.query)}`,
        headers: redactHeaders(head.headers),
        body: undefined,
      }));
      const repeated = repeatedHeader(head.rawHeaders);
      checkHost(head.headers, ctx.anyHost, repeated);
      checkOrigin(head.headers, ctx.allowedOrigins);
      const origin = head.headers.origin;
      if (origin !== undefined) {
        x.cors = corsHeaders(origin);
        if (head.method === "OPTIONS") return sendEmpty(x, 204, preflightHeaders(origin, head.headers["access-control-request-headers"]));
      }
      switch (resolved.kind) {
        case "health":
          recorded = false;
          return sendJson(x, 200, ctx.health(), { "cache-control": "no-store" });
        case "dashboard":
          if (!http) throw notFound(`Nothing is served at ${head.method} ${resolved.path} over this transport.`);
          recorded = false;
          for (const [name, value] of Object.entries(x.cors)) http.res.setHeader(name, value);
          await ctx.app(http.req, http.res);
          return;
        case "metrics":
          // SPEC 12: the local key as a bearer, refused like the chat family's requests (and such a refusal recorded).
          authenticate(chatFamily, head.headers, "", repeated, ctx.keyMatches, false);
          recorded = false;
          return await answerMetrics(x, ctx.metrics);
        case "preconnect":
          recorded = false;
          return sendEmpty(x, 200, x.cors);
        case "not_found":
          throw notFound(`Nothing is served at ${head.method} ${resolved.path}. ${basesHint(ctx)}`);
        case "proxy":
          return await proxy(x, ctx, resolved, repeated, trail, readBody);
      }
    } catch (error) {
      answerError(x, ctx, family, trail, error);
    } finally {
      if (recorded) record(x, ctx, trail);
    }
  };
}

function basesHint(ctx: GatewayContext): string {
  const messages = ctx.segments.messages ? `/${ctx.segments.messages}/v1/...` : "/v1/messages";
  const gemini = ctx.segments.gemini ? `/${ctx.segments.gemini}/v1beta/...` : "/v1beta/...";
  // A person who opens the gateway's address in a browser lands on `/`: the dashboard is what they are looking for.
  return `Use /v1/... (OpenAI style), ${messages} (Anthropic style) or ${gemini} (Gemini style); the dashboard is at /ui/ (\`gateway ui\` opens it with the key).`;
}

export type GatewayHandler = ReturnType<typeof createGatewayHandler>;

/** One exchange run through the stages, whatever carried it. */
export type ExchangeServer = ReturnType<typeof exchangeServer>;
