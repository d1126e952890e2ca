import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { HttpError, notFound } from "../errors/index.js";
import { chatFamily, type Family } from "../families/index.js";
import { createExchange, type Exchange } from "./exchange.js";
import type { GatewayContext } from "./gateway-context.js";
import { redactHeaders } from "./redact-headers.js";
import { sendError, toHttpError } from "./render-error.js";
import { deliver } from "./reply/deliver.js";
import { answerModelList } from "./reply/model-list.js";
import { aliasModel } from "./stages/alias-model.js";
import { authenticate } from "./stages/authenticate.js";
import { forward } from "./stages/forward.js";
import { checkHost, checkOrigin, corsHeaders, preflightHeaders, repeatedHeader } from "./stages/guard.js";
import { checkRequest, modelNamed, readRequestBody, type ClientRequest } from "./stages/read-request.js";
import { record, requestIdOf } from "./stages/record.js";
import { resolve, type Resolved } from "./stages/resolve.js";

/**
 * The error boundary: whatever a stage threw becomes one answer in the client's family shape (or the error event
 * of a stream already under way), and the request's record says what happened. A request whose client went away
 * is only recorded.
 */
function answerError(x: Exchange, ctx: GatewayContext, family: Family, error: unknown): void {
  const { draft, abort } = x;
  if (abort.aborted && !(abort.reason instanceof HttpError)) {
    draft.outcome = "client_closed";
    return;
  }
  const http = toHttpError(error, ctx.onInternalError);
  draft.error = http;
  if (x.eventStream?.opened) {
    draft.outcome = "upstream_error";
    return x.eventStream.fail(http);
  }
  draft.outcome = "local_error";
  draft.status = http.status;
  // The rest of a slow body is not worth waiting for: answer, then close the connection.
  if (http.status === 408) x.res.setHeader("connection", "close");
  // A routed request's answer names the upstream (SPEC 10, Details), a local 502/503/504 the last one tried.
  const sent = sendError(x.res, family, http, requestIdOf(x, ctx), draft.upstream === undefined ? x.cors : { ...x.cors, "x-gateway-upstream": draft.upstream });
  if (sent !== undefined && draft.capture) {
    // What the gateway refused is what a user most wants to see in a capture: the answer it got is part of it.
    draft.capture.response(http.status, { "content-type": "application/json" }, false);
    draft.capture.chunk(performance.now() - x.started, Buffer.from(sent));
  }
}

/** Stages 3 to 8 of a request for a family's path: authenticate, read, alias, route and forward, deliver. */
async function proxy(x: Exchange, ctx: GatewayContext, resolved: Extract<Resolved, { kind: "proxy" }>, repeated: string | undefined): Promise<void> {
  const { req, draft } = x;
  const { endpoint, query } = resolved;
  draft.format = endpoint.format;
  authenticate(endpoint.family, req.headers, query, repeated, ctx.keyMatches);
  const bytes = await readRequestBody(req, ctx.config.maxBodyBytes, ctx.bodyTimeoutMs);
  // A body the checks refuse is what a user most wants to see: it is captured, and the model it names recorded.
  draft.capture?.requestBody(bytes);
  let request: ClientRequest;
  try {
    request = checkRequest(req, endpoint, bytes);
  } catch (error) {
    draft.model = modelNamed(endpoint, bytes);
    throw error;
  }
  const model = aliasModel(request.model, ctx.aliases);
  draft.model = model.asked;
  draft.target = model.target;
  draft.stream = request.stream;
  if (endpoint.kind === "models") return answerModelList(x, ctx, endpoint, query);
  await deliver(x, endpoint, await forward(x, ctx, endpoint, query, request, model), ctx.secrets);
}

/**
 * Every request, in SPEC section 3's order: resolve the endpoint and its family before any check, guard Host and
 * Origin, answer preflights; the gateway's own pages (`/health`, the dashboard) then go to the h3 app, and model
 * traffic runs the proxy stages. A proxied request is in the in-flight registry from accept to last byte (so a
 * shutdown can end it in its family's shape). Every request gets exactly one record, written in the `finally`,
 * except what passed the guards to the gateway's own pages and pre-connects: they are not traffic.
 */
export function createGatewayHandler(ctx: GatewayContext) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const resolved = resolve(req.method ?? "GET", req.url ?? "/", req.headers, ctx.segments);
    const x = createExchange(req, res);
    const family = resolved.kind === "proxy" ? resolved.endpoint.family : chatFamily;
    x.draft.path = resolved.path;
    x.draft.family = resolved.kind === "proxy" ? family.name : null;
    const leave = resolved.kind === "proxy" ? ctx.inflight.enter(x) : undefined;
    // One listener ends both: the upstream call of a client that went away, and the request's time in flight.
    res.once("close", () => {
      if (!res.writableFinished) x.abort.abort();
      leave?.();
    });
    let recorded = true;
    try {
      // Every recorded request reaches the capture decision, refusals included (a 401 is worth seeing). Inside the
      // boundary: whatever reading the request throws is an answer, never an unhandled rejection that ends the process.
      x.draft.capture = ctx.captures.start(() => ({
        method: req.method ?? "GET",
        path: `${resolved.path}${family.upstreamQuery(resolved.query)}`,
        headers: redactHeaders(req.headers),
        body: undefined,
      }));
      const repeated = repeatedHeader(req.rawHeaders);
      checkHost(req, ctx.anyHost, repeated);
      checkOrigin(req, ctx.allowedOrigins);
      const origin = req.headers.origin;
      if (origin !== undefined) {
        x.cors = corsHeaders(origin);
        if (req.method === "OPTIONS") {
          x.draft.status = 204;
          res.writeHead(204, preflightHeaders(origin, req.headers["access-control-request-headers"]));
          return void res.end();
        }
      }
      switch (resolved.kind) {
        case "health":
        case "dashboard":
          recorded = false;
          for (const [name, value] of Object.entries(x.cors)) res.setHeader(name, value);
          await ctx.app(req, res);
          return;
        case "preconnect":
          recorded = false;
          return void res.writeHead(200, x.cors).end();
        case "not_found":
          throw notFound(`Nothing is served at ${req.method} ${resolved.path}. ${basesHint(ctx)}`);
        case "proxy":
          return await proxy(x, ctx, resolved, repeated);
      }
    } catch (error) {
      answerError(x, ctx, family, error);
    } finally {
      if (recorded) record(x, ctx);
    }
  };
}

function basesHint(ctx: GatewayContext): string {
  const messages = ctx.segments.messages ? `/${ctx.segments.messages}/v1/...` : "/v1/messages";
  const gemini = ctx.segments.gemini ? `/${ctx.segments.gemini}/v1beta/...` : "/v1beta/...";
  return `Use /v1/... (OpenAI style), ${messages} (Anthropic style) or ${gemini} (Gemini style).`;
}

export type GatewayHandler = ReturnType<typeof createGatewayHandler>;
