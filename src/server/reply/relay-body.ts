import { ApiError, apiError, type ErrorFields } from "../../errors/index.js";
import type { ErrorRenderer } from "../../formats/index.js";
import type { ReplyBody } from "../../upstream/reply-body.js";
import { isTimeout } from "../../upstream/retry-policy.js";
import { includesBytes, lastEventEnd } from "./event-boundary.js";
import type { ReplySink } from "./sink.js";
import { TurnWrites } from "./turn-writes.js";

export interface RelayOptions {
  /** Whose error event ends an event stream the upstream breaks off; other bodies are cut (socket reset). */
  errors: ErrorRenderer;
  /** Whether the body is server-sent events. */
  isEventStream: boolean;
  /** Sees every chunk as it arrives from the upstream, for timing and usage. */
  onChunk?: ((chunk: Buffer) => void) | undefined;
  /** An event stream's complete events, as each read completes them and they leave (never half an event). */
  onEvents?: ((events: Buffer) => void) | undefined;
  /** The bytes of events that end a complete stream though more may follow (`ReplyShape.streamEnd`). */
  streamEnd?: readonly Buffer[] | undefined;
}

/** The error event for a body that broke: an `ApiError` (shutdown) speaks for itself, else timeout or broken. */
export function midStreamError(error: Error): ErrorFields {
  if (error instanceof ApiError) return error;
  return isTimeout(error)
    ? apiError(504, "The upstream stopped sending in the middle of the reply (idle timeout). Try again.", { type: "timeout_error", code: "upstream_timeout" })
    : apiError(502, "The upstream connection broke in the middle of the reply. Try again.", { code: "upstream_error" });
}

/** The last `n` bytes of `pieces` together (a small copy: `n` is at most the length of a CRLF CRLF). */
function lastBytes(pieces: readonly Buffer[], n: number): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (let i = pieces.length - 1; i >= 0 && size < n; i--) {
    const piece = pieces[i]!;
    const take = piece.subarray(Math.max(0, piece.length - (n - size)));
    parts.unshift(take);
    size += take.length;
  }
  return Buffer.concat(parts, size);
}

/** How a relayed body ended. */
export type RelayOutcome = "complete" | "upstream_error" | "client_closed";

/**
 * Step 8 of the request path (docs/ARCHITECTURE.md), passthrough.
 * Copies the upstream body to the client as it arrives, no buffering beyond socket backpressure. The
 * first bytes a turn of the loop brings leave at once; what the same read brings after them waits for the end of
 * that turn and leaves in one write (`TurnWrites`). In an event stream, the bytes of an event whose blank line has
 * not come yet wait for it (SPEC section 5), so an upstream that dies mid-event never leaves half an event in front of
 * the one error event that then ends the stream; complete events leave with the read that brought their last byte.
 * Any other body that breaks is cut short, so the client can never take it for a complete reply.
 */
export function relayBody(body: ReplyBody, sink: ReplySink, options: RelayOptions): Promise<RelayOutcome> {
  const { errors, isEventStream, onChunk, onEvents, streamEnd } = options;
  /** Whether an event that ends the stream was sent: a client that leaves after it got a complete reply. */
  let endSent = false;
  /** Bytes of an event still waiting for its blank line, as the chunks that brought them. */
  let held: Buffer[] = [];
  const turn = new TurnWrites<Buffer>(sink, (bytes) => sink.write(bytes), Buffer.concat);

  /** Where the last complete event in `chunk` ends, counting a blank line that starts in the held bytes. */
  function eventEnd(chunk: Buffer): number {
    const end = lastEventEnd(chunk);
    if (end > 0 || held.length === 0) return end;
    const tail = lastBytes(held, 3);
    const joint = lastEventEnd(Buffer.concat([tail, chunk.subarray(0, 3)]));
    return joint > tail.length ? joint - tail.length : 0;
  }

  /** Sends what is complete of `chunk` after the bytes held before it; holds the rest. */
  function sendEvents(chunk: Buffer): boolean {
    const end = eventEnd(chunk);
    if (end === 0) {
      held.push(chunk);
      return true;
    }
    const complete = end === chunk.length ? chunk : chunk.subarray(0, end);
    // Whole events, the held bytes before them included: a marker cut between two reads is found whole here.
    const events = held.length === 0 ? complete : Buffer.concat([...held, complete]);
    if (streamEnd && !endSent) endSent = streamEnd.some((marker) => includesBytes(events, marker));
    onEvents?.(events);
    held = end === chunk.length ? [] : [chunk.subarray(end)];
    return turn.send(events);
  }

  return new Promise((resolve) => {
    let settled = false;
    let waiting = false;
    const settle = (outcome: RelayOutcome) => {
      settled = true;
      resolve(outcome);
    };
    // Listened for only while the client's socket is full: most replies never fill it.
    const onDrain = () => {
      sink.offDrain(onDrain);
      waiting = false;
      body.resume();
    };
    // A client that goes away aborts the exchange, and with it the upstream request: `error` below says so.
    body.relay({
      data(chunk) {
        if (settled) return true;
        const flowing = isEventStream ? sendEvents(chunk) : turn.send(chunk);
        if (!flowing && !waiting) {
          waiting = true;
          sink.onDrain(onDrain);
        }
        onChunk?.(chunk);
        return flowing;
      },
      end() {
        if (settled) return;
        const queued = turn.take();
        const rest = queued ? [queued, ...held] : held;
        if (rest.length === 0) sink.end();
        else sink.end(rest.length === 1 ? rest[0] : Buffer.concat(rest));
        settle("complete");
      },
      error(error) {
        if (settled) return;
        if (waiting) sink.offDrain(onDrain);
        if (sink.closed) return settle(endSent ? "complete" : "client_closed");
        if (isEventStream) {
          // The complete events that came before the break reach the client before its error event.
          turn.flush();
          sink.end(errors.streamEvent(midStreamError(error)));
        } else sink.close();
        settle("upstream_error");
      },
    });
  });
}
