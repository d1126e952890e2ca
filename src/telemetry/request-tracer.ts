import type { IncomingHttpHeaders } from "node:http";
import type { ClientRequest } from "../request/client-request.js";
import type { RequestRecord } from "../request-log/record.js";

/** One request's span, from accept to its record. */
export interface RequestSpan {
  /** The W3C trace context headers (`traceparent`, and `tracestate` when the client sent one) that name this span upstream. */
  readonly upstreamHeaders: Readonly<Record<string, string>>;
  /** Ends the span with what the record says of the request; `request` is the request as read, when it was. */
  end(record: RequestRecord, request: ClientRequest | undefined): void;
}

/** Starts a span per request, the child of the client's `traceparent` when it sent one (SPEC 12). */
export interface RequestTracer {
  start(headers: IncomingHttpHeaders): RequestSpan;
}
