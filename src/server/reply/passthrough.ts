import { performance } from "node:perf_hooks";
import type { ReplyShape } from "../../formats/index.js";
import { clientResponseHeaders } from "../../upstream/header-policy.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import { redactHeaders } from "../redact-headers.js";
import { EVENT_STREAM_HEADERS } from "./event-stream-writer.js";
import { createUsageObserver } from "./observe-usage.js";
import { relayBody } from "./relay-body.js";
import { createStreamErrorWatch } from "./stream-error-watch.js";
import { ReplyOnAnswer } from "./transform.js";

/** A header's value when it was sent once; repeated values are not trusted for content type or encoding. */
export const singleHeader = (value: string | string[] | undefined): string | undefined => (typeof value === "string" ? value : undefined);

/** Each format's stream-end markers as bytes, made once per format rather than per stream. */
const endMarkers = new WeakMap<readonly string[], readonly Buffer[]>();
function streamEndBytes(shape: ReplyShape): readonly Buffer[] | undefined {
  const markers = shape.streamEnd;
  if (!markers) return undefined;
  let bytes = endMarkers.get(markers);
  if (!bytes) endMarkers.set(markers, (bytes = markers.map((marker) => Buffer.from(marker))));
  return bytes;
}

/**
 * The passthrough reply: the upstream's status and headers, then its body relayed as it arrives, byte for byte (an
 * event's bytes held only until its blank line), watched for timing and usage on the way. `shape` is the format of
 * the bytes (or their family's, at a path no format claims): it reads their usage and writes the error event of a
 * stream that breaks.
 */
export async function relayPassthrough(x: Exchange, reply: UpstreamReply, shape: ReplyShape, extraHeaders: Record<string, string>, countText = false): Promise<void> {
  const contentType = singleHeader(reply.headers["content-type"]);
  const isEventStream = contentType?.startsWith("text/event-stream") === true;
  const { sink, delivery, capture } = x;
  delivery.status = reply.status;
  delivery.replyHeaders = reply.headers;
  sink.head(reply.status, Object.assign(clientResponseHeaders(reply.headers), extraHeaders, isEventStream ? EVENT_STREAM_HEADERS : undefined, x.cors));
  // Headers leave with the first body chunk, in one write instead of two. An event stream whose first event is
  // slow still shows its headers to the client one loop turn later.
  if (isEventStream) {
    setImmediate(() => {
      if (delivery.firstByteAt === undefined && !sink.ended) sink.flushHead();
    });
  }
  const usage = createUsageObserver(shape.usage, contentType, singleHeader(reply.headers["content-encoding"]), countText);
  const streamError = isEventStream && !reply.headers["content-encoding"] ? createStreamErrorWatch() : undefined;
  capture?.response(reply.status, redactHeaders(reply.headers), isEventStream);
  delivery.outcome = await relayBody(reply.body, sink, {
    errors: shape.errors,
    isEventStream,
    streamEnd: isEventStream ? streamEndBytes(shape) : undefined,
    onChunk: (chunk) => {
      const now = performance.now();
      delivery.firstByteAt ??= now;
      usage.observe(chunk);
      capture?.chunk(now - x.started, chunk);
    },
    onEvents: streamError && ((events) => streamError.observe(events)),
  });
  delivery.usage = usage.result();
  // An error reply relays no answer: it is recorded without tokens, never with an estimate.
  delivery.relayedChars = reply.status < 300 ? usage.relayedChars() : undefined;
  // SPEC 11: an error event inside a 200 stream is the upstream's failure, though its bytes reached the client whole.
  if (streamError?.seen()) delivery.outcome = "upstream_error";
}

/**
 * A reply relayed as it came: the plan of a request in a format the upstream serves, or of a path no format claims.
 * `countText`: its stream will report no usage, so what it relays is counted for the estimate (SPEC 11, Budgets).
 */
export class PassthroughReply extends ReplyOnAnswer {
  readonly #x: Exchange;
  readonly #shape: ReplyShape;
  readonly #upstream: string;
  readonly estimatesInput: boolean;

  constructor(x: Exchange, shape: ReplyShape, upstream: string, countText = false) {
    super();
    this.#x = x;
    this.#shape = shape;
    this.#upstream = upstream;
    this.estimatesInput = countText;
  }

  deliver(reply: UpstreamReply): Promise<void> {
    return relayPassthrough(this.#x, reply, this.#shape, { "x-gateway-upstream": this.#upstream }, this.estimatesInput);
  }
}
