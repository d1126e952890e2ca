import type { ServerResponse } from "node:http";
import { HttpError, UpstreamError, internalError } from "../errors/index.js";
import type { Family } from "../families/index.js";

/** The statuses of the upstream layer's failures (SPEC section 4): unreachable 502, no key 503, timeout 504. */
const UPSTREAM_STATUS = {
  unreachable: [502, "api_error", "upstream_error"],
  status: [502, "api_error", "upstream_error"],
  no_key: [503, "api_error", "no_upstream_key"],
  timeout: [504, "timeout_error", "upstream_timeout"],
} as const;

/**
 * What the client is told about an error: an `HttpError` as it is; an upstream failure with its status; anything
 * else is a bug in the gateway, reported to `onInternalError` and answered with a 500 that says so.
 */
export function toHttpError(error: unknown, onInternalError: (error: unknown) => void): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof UpstreamError) {
    const [status, type, code] = UPSTREAM_STATUS[error.kind];
    return new HttpError(status, type, error.message, { code, cause: error });
  }
  onInternalError(error);
  return internalError(error);
}

/**
 * The one place an error becomes an HTTP answer in the caller's family envelope, with `x-request-id`. Returns the
 * body sent. A response whose headers already left cannot change its status: it is cut (a stream's error event is
 * written by its relay), and nothing is returned.
 */
export function sendError(res: ServerResponse, family: Family, error: HttpError, requestId: string, extraHeaders: Record<string, string> = {}): string | undefined {
  if (res.headersSent) {
    res.destroy();
    return undefined;
  }
  const body = JSON.stringify(family.errorBody(error));
  res.writeHead(error.status, {
    ...extraHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
  return body;
}
