import { performance } from "node:perf_hooks";
import type { Exchange } from "../exchange.js";

/**
 * A JSON answer the gateway wrote itself (a translated reply, a model-list union, a local count): status, the
 * caller's headers, `content-length`, the body, timing and capture.
 */
export function sendJson(x: Exchange, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  const now = performance.now();
  const { delivery, capture } = x;
  delivery.status = status;
  delivery.firstByteAt ??= now;
  capture?.response(status, { "content-type": "application/json" }, false);
  capture?.chunk(now - x.started, Buffer.from(text));
  x.sink.head(status, Object.assign({}, headers, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }, x.cors));
  x.sink.end(x.head.method === "HEAD" ? undefined : text);
}

/** An answer without a body (a CORS preflight's 204), with its headers. */
export function sendEmpty(x: Exchange, status: number, headers: Record<string, string>): void {
  x.delivery.status = status;
  x.sink.head(status, headers);
  x.sink.end();
}
