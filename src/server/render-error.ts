import type { ServerResponse } from "node:http";
import type { ApiError } from "../errors/index.js";
import type { Family } from "../formats/index.js";

/**
 * The one place an error becomes an HTTP answer in the caller's family envelope, with `x-request-id`. Returns the
 * body sent. A response whose headers already left cannot change its status: it is cut (a stream's error event is
 * written by its relay), and nothing is returned.
 */
export function sendError(res: ServerResponse, family: Family, error: ApiError, requestId: string, extraHeaders: Record<string, string> = {}): string | undefined {
  if (res.headersSent) {
    res.destroy();
    return undefined;
  }
  const body = JSON.stringify(family.errors.body(error));
  res.writeHead(error.status, {
    ...extraHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
  return body;
}
