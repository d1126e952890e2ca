import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { GatewayError } from "../../errors/index.js";
import type { ErrorFields, Family } from "../../families/index.js";
import { isTimeout } from "../../upstream/retry-policy.js";
import { lastEventEnd } from "./event-boundary.js";

export interface RelayOptions {
  family: Family;
  /** Server-sent events get a family error event when the upstream breaks; other bodies are cut (socket reset). */
  isEventStream: boolean;
  /** Sees every chunk right after it was handed to the client, for timing and usage. */
  onChunk?: ((chunk: Buffer) => void) | undefined;
}

/** The error event for a body that broke: a `GatewayError` (shutdown) speaks for itself, else timeout or broken. */
function midStreamError(error: Error): ErrorFields {
  if (error instanceof GatewayError) return error;
  const timedOut = isTimeout(error);
  return {
    status: timedOut ? 504 : 502,
    type: timedOut ? "timeout_error" : "api_error",
    message: timedOut
      ? "The upstream stopped sending in the middle of the reply (idle timeout). Try again."
      : "The upstream connection broke in the middle of the reply. Try again.",
    param: null,
    code: timedOut ? "upstream_timeout" : "upstream_error",
  };
}

/** How a relayed body ended. */
export type RelayOutcome = "complete" | "upstream_error" | "client_closed";

/**
 * Stage 8: copies the upstream body to the client as it arrives: no re-chunking, no buffering beyond socket
 * backpressure. In an event stream, the bytes of an event whose blank line has not come yet wait for it (SPEC
 * section 5), so an upstream that dies mid-event never leaves half an event in front of the one error event that
 * then ends the stream; complete events leave the moment their last byte arrives. Any other body that breaks is
 * cut short, so the client can never take it for a complete reply.
 */
export function relayBody(body: Readable, res: ServerResponse, options: RelayOptions): Promise<RelayOutcome> {
  const { family, isEventStream, onChunk } = options;
  let held: Buffer | undefined;

  /** What of `chunk` (after whatever was held) may go now; the rest of a partial event is held. */
  function completeEvents(chunk: Buffer): Buffer | undefined {
    const data = held ? Buffer.concat([held, chunk]) : chunk;
    const end = lastEventEnd(data);
    held = end === data.length ? undefined : data.subarray(end);
    return end === 0 ? undefined : end === data.length ? data : data.subarray(0, end);
  }

  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: RelayOutcome) => {
      if (settled) return;
      settled = true;
      body.off("data", onData);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      const ready = isEventStream ? completeEvents(chunk) : chunk;
      if (ready && !res.write(ready)) body.pause();
      onChunk?.(chunk);
    };
    const onDrain = () => body.resume();
    const onClose = () => {
      if (res.writableFinished) return;
      body.destroy();
      settle("client_closed");
    };
    body.on("data", onData);
    body.once("end", () => {
      res.end(held);
      settle("complete");
    });
    body.once("error", (error) => {
      if (settled || res.destroyed) return settle("client_closed");
      if (isEventStream) res.end(family.streamErrorEvent(midStreamError(error)));
      else res.destroy();
      settle("upstream_error");
    });
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}
