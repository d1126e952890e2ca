import { performance } from "node:perf_hooks";
import type { ApiError } from "../../errors/index.js";
import type { Family } from "../../formats/index.js";
import type { Exchange } from "../exchange.js";
import { sendJson } from "./send-json.js";

/**
 * The one place an error becomes a JSON answer, in the client's family envelope (`family.errors.body`). An error the
 * gateway made carries `x-request-id` and `x-gateway-error` (its code, else its type), names the upstream it concerns (SPEC 10, Details: a routed request's answer
 * names the upstream, a local 502/503/504 the last one tried) and is recorded with its code; an upstream's error put
 * in the client's shape goes out with that upstream's headers, as the reply it is. A response whose headers already
 * left cannot change its status: it is cut (a stream ends through its reply transform, never here).
 */
export function sendError(x: Exchange, family: Family, error: ApiError, requestId: () => string, upstream: string | undefined): void {
  if (error.headers) return sendJson(x, error.status, family.errors.body(error), error.headers);
  const { sink, delivery, capture } = x;
  delivery.error = error;
  delivery.outcome = "local_error";
  delivery.status = error.status;
  if (sink.headSent) return void sink.close();
  const body = family.errors.json(error);
  // The rest of a slow body is not worth waiting for: answer, then close the connection.
  sink.head(error.status, Object.assign({}, x.cors, error.status === 408 ? { connection: "close" } : undefined, upstream === undefined ? undefined : { "x-gateway-upstream": upstream }, error.retryAfterSeconds === undefined ? undefined : { "retry-after": String(error.retryAfterSeconds) }, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId(),
    // Says the gateway made this answer, not the upstream it names: `gateway chat` words it so (a spent budget is
    // the gateway's own, never "the upstream is rate limiting").
    "x-gateway-error": error.code ?? error.type,
  }));
  sink.end(x.head.method === "HEAD" ? undefined : body);
  // What the gateway refused is what a user most wants to see in a capture: the answer it got is part of it.
  capture?.response(error.status, { "content-type": "application/json" }, false);
  capture?.chunk(performance.now() - x.started, Buffer.from(body));
}
