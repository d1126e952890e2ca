import { performance } from "node:perf_hooks";
import type { GatewayError } from "../../errors/index.js";
import type { Usage } from "../../families/index.js";
import type { RequestRecord } from "../../request-log/record.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { redactHeaders } from "../redact-headers.js";

/** The request id of an exchange, made on first use. */
export function requestIdOf(x: Exchange, ctx: GatewayContext): string {
  return (x.requestId ??= ctx.nextRequestId());
}

/** Stage 10: one record per finished request, for the terminal line, the request log and whoever listens. */
export function record(
  x: Exchange,
  ctx: GatewayContext,
  status: number,
  outcome: RequestRecord["outcome"],
  detail: { usage?: Usage | undefined; error?: GatewayError | undefined } = {},
): void {
  const { usage, error } = detail;
  const entry: RequestRecord = {
    time: new Date().toISOString(),
    requestId: requestIdOf(x, ctx),
    method: x.req.method ?? "GET",
    path: x.path,
    family: x.claim ? x.family.name : null,
    model: x.model,
    // Only when an alias or an error put something there: every field costs each line of the log.
    ...(x.aliasTarget === undefined ? undefined : { target: x.aliasTarget }),
    status,
    durationMs: performance.now() - x.started,
    ttfbMs: x.firstByteAt === undefined ? undefined : x.firstByteAt - x.started,
    inputTokens: usage?.inputTokens,
    outputTokens: usage?.outputTokens,
    cacheReadTokens: usage?.cacheReadTokens,
    cacheWriteTokens: usage?.cacheWriteTokens,
    userAgent: x.req.headers["user-agent"],
    outcome,
    ...(error?.code ? { errorCode: error.code } : undefined),
    headers: ctx.recordHeaders ? { request: redactHeaders(x.req.headers), reply: redactHeaders(x.reply?.headers ?? {}) } : undefined,
  };
  x.capture?.finish(entry);
  ctx.onRequest(entry);
}
