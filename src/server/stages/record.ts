import { performance } from "node:perf_hooks";
import type { RequestRecord } from "../../request-log/record.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { redactHeaders } from "../redact-headers.js";

/** The request id of an exchange, made on first use. */
export function requestIdOf(x: Exchange, ctx: GatewayContext): string {
  return (x.requestId ??= ctx.nextRequestId());
}

/**
 * Stage 9, run once per proxied request in the handler's `finally`: one record for the terminal line, the request
 * log, the dashboard's feed, and the capture decision. Fields that are usually absent are undefined, which leaves
 * them out of each line of the log (every field costs each line) without an object spread per field.
 */
export function record(x: Exchange, ctx: GatewayContext): void {
  const { draft } = x;
  const { usage, error } = draft;
  const entry: RequestRecord = {
    time: new Date().toISOString(),
    requestId: requestIdOf(x, ctx),
    method: x.req.method ?? "GET",
    path: draft.path,
    family: draft.family,
    model: draft.model,
    target: draft.target,
    stream: draft.stream || undefined,
    upstream: draft.upstream,
    echo: draft.echo,
    format: draft.format,
    upstreamFormat: draft.upstreamFormat,
    translated: draft.upstreamFormat !== undefined && draft.upstreamFormat !== draft.format ? `${draft.format} -> ${draft.upstreamFormat}` : undefined,
    tried: draft.tried.length === 0 ? undefined : draft.tried,
    status: draft.status ?? 499,
    durationMs: performance.now() - x.started,
    ttfbMs: draft.firstByteAt === undefined ? undefined : draft.firstByteAt - x.started,
    inputTokens: usage?.inputTokens,
    outputTokens: usage?.outputTokens,
    cacheReadTokens: usage?.cacheReadTokens,
    cacheWriteTokens: usage?.cacheWriteTokens,
    userAgent: x.req.headers["user-agent"],
    outcome: draft.outcome,
    errorCode: error?.code || undefined,
    headers: ctx.recordHeaders ? { request: redactHeaders(x.req.headers), reply: redactHeaders(draft.replyHeaders ?? {}) } : undefined,
  };
  try {
    draft.capture?.finish(entry);
    ctx.onRequest(entry);
  } catch (error) {
    // A sink that fails (a full disk, a bug) must not take the request, or the gateway, down with it.
    ctx.onInternalError(error);
  }
}
