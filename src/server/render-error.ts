import type { ServerResponse } from "node:http";
import type { GatewayError } from "../errors/index.js";
import type { Family } from "../families/index.js";

/**
 * The one place a `GatewayError` becomes an HTTP answer in the caller's family envelope. Extra headers (CORS)
 * are the caller's to add.
 */
export function sendError(
  res: ServerResponse,
  family: Family,
  error: GatewayError,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(family.errorBody(error));
  res.writeHead(error.status, {
    ...extraHeaders,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
  });
  res.end(res.req.method === "HEAD" ? undefined : body);
}
