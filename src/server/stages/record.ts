import { performance } from "node:perf_hooks";
import { noUsage, type FamilyName, type Format, type Usage } from "../../formats/index.js";
import type { ClientRequest } from "../../request/client-request.js";
import type { RequestRecord } from "../../request-log/record.js";
import type { Route } from "../../routing/router.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { upstreamCost } from "../../team/upstream-cost.js";
import { redactHeaders } from "../redact-headers.js";
import type { Forwarded } from "./forward.js";

/**
 * What the handler learns of a request as its stages return, kept for the record: written only by the handler
 * (what the client was sent is the reply layer's part, `Exchange.delivery`). The format an upstream was asked in is
 * its plan's (`RoutePlan.upstreamFormat`), so that prices read usage in its convention, never from a display string.
 */
export interface Trail {
  /** The path without its query (a query may carry `?key=`), dot segments resolved. */
  path: string;
  family: FamilyName | null;
  /** The client's format, when its endpoint has one. */
  format: Format | undefined;
  /** The model the request names, even in a body the checks refused (a refusal is worth finding by its model). */
  model: string | undefined;
  request: ClientRequest | undefined;
  route: Route | undefined;
  forwarded: Forwarded | undefined;
  /** The client went away before its reply ended (the error boundary saw its abort). */
  clientLeft: boolean;
}

/** The request id of an exchange, made on first use. */
export function requestIdOf(x: Exchange, ctx: GatewayContext): string {
  return (x.requestId ??= ctx.nextRequestId());
}

/** The upstream a request went to: the one that answered or was tried last, or the upstreams a model list asked. */
export const upstreamOf = (x: Exchange, trail: Trail): string | undefined => trail.forwarded?.upstream.name ?? x.delivery.listedBy;

/**
 * The tokens of a reply that reported no usage, estimated (SPEC 11, Budgets): input as a local count's quick
 * estimate of the request (the one its translation made, if it was translated), or, for a passed-through JSON reply
 * whose request body was let go before it ended, the body's size over 4; output as the characters it relayed over 4
 * (the same floor). Undefined when the reply reported usage or its text was not counted.
 */
function estimatedUsage(delivery: Exchange["delivery"], request: ClientRequest | undefined, ctx: GatewayContext): Usage | undefined {
  const { usage, relayedChars } = delivery;
  if (relayedChars === undefined || usage?.inputTokens !== undefined || usage?.outputTokens !== undefined) return undefined;
  const input = delivery.inputEstimate ?? request?.estimatedInputTokens(ctx.seal) ?? (request && Math.ceil(request.size / 4));
  return { ...noUsage(), inputTokens: input, outputTokens: Math.ceil(relayedChars / 4) };
}

/**
 * Step 9 of the request path (docs/ARCHITECTURE.md).
 * Run once per proxied request in the handler's `finally`: one record for the terminal line, the request
 * log, the dashboard's feed, and the capture decision, assembled here from the handler's trail and the delivery.
 * Fields that are usually absent are undefined, which leaves them out of each line of the log (every field costs each
 * line) without an object spread per field.
 */
export function record(x: Exchange, ctx: GatewayContext, trail: Trail): void {
  const { delivery } = x;
  const { error } = delivery;
  const { request, forwarded } = trail;
  const usage = estimatedUsage(delivery, request, ctx) ?? delivery.usage;
  const upstreamFormat = forwarded?.plan?.upstreamFormat?.name;
  const upstreamCostUsd = forwarded ? upstreamCost(delivery.replyHeaders) : undefined;
  const priced = upstreamCostUsd !== undefined || usage?.inputTokens !== undefined || usage?.outputTokens !== undefined;
  const entry: RequestRecord = {
    time: new Date().toISOString(),
    requestId: requestIdOf(x, ctx),
    method: x.head.method,
    path: trail.path,
    transport: x.head.transport,
    family: trail.family,
    model: trail.model,
    target: trail.route?.target,
    stream: request?.stream || undefined,
    upstream: upstreamOf(x, trail),
    echo: forwarded?.upstream.isEcho,
    local: forwarded?.upstream.isLocal || undefined,
    rule: trail.route?.rule,
    session: request?.sessionId(),
    format: trail.format,
    upstreamFormat,
    translated: upstreamFormat !== undefined && upstreamFormat !== trail.format ? `${trail.format} -> ${upstreamFormat}` : undefined,
    key: forwarded?.kind === "answered" ? forwarded.reply.key : undefined,
    tried: forwarded === undefined || forwarded.tried.length === 0 ? undefined : forwarded.tried,
    status: delivery.status ?? 499,
    durationMs: performance.now() - x.started,
    ttfbMs: delivery.firstByteAt === undefined ? undefined : delivery.firstByteAt - x.started,
    ownLogin: forwarded?.upstream.takesClientCredential || undefined,
    estimated: usage === delivery.usage ? undefined : true,
    inputTokens: usage?.inputTokens,
    outputTokens: usage?.outputTokens,
    cacheReadTokens: usage?.cacheReadTokens,
    cacheWriteTokens: usage?.cacheWriteTokens,
    userAgent: x.head.headers["user-agent"],
    upstreamCostUsd,
    costSource: priced ? (upstreamCostUsd === undefined ? "estimate" : "upstream") : undefined,
    // An upstream that failed inside its stream failed, whatever the client did after it was told (SPEC 11).
    outcome: trail.clientLeft && delivery.outcome !== "upstream_error" ? "client_closed" : delivery.outcome,
    errorCode: error?.code || undefined,
    headers: ctx.recordHeaders ? { request: redactHeaders(x.head.headers), reply: redactHeaders(delivery.replyHeaders ?? {}) } : undefined,
  };
  try {
    x.capture?.finish(entry);
    ctx.onRequest(entry);
    x.span?.end(entry, request);
  } catch (error) {
    // A sink that fails (a full disk, a bug) must not take the request, or the gateway, down with it.
    ctx.onInternalError(error);
  }
}
