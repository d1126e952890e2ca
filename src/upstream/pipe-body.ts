import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import type { ErrorFields, Family } from "../families/index.js";
import { GatewayError } from "../errors.js";
import { isTimeout } from "./retry-policy.js";

export interface PipeOptions {
  family: Family;
  /** Server-sent events get a family error event when the upstream breaks; other bodies are cut (socket reset). */
  isEventStream: boolean;
  /** Sees every chunk right after it was handed to the client, for timing and usage. */
  onChunk?: (chunk: Buffer) => void;
}

/** The error event for a body that broke: a `GatewayError` (shutdown) speaks for itself, else timeout or broken. */
function midStreamError(error: Error): ErrorFields {
  if (error instanceof GatewayError) return error;
  const timedOut = isTimeout(error);
  return {
    type: timedOut ? "timeout_error" : "api_error",
    message: timedOut
      ? "The upstream stopped sending in the middle of the reply (idle timeout). Try again."
      : "The upstream connection broke in the middle of the reply. Try again.",
    param: null,
    code: timedOut ? "upstream_timeout" : "upstream_error",
  };
}

/** How a piped body ended. */
export type PipeOutcome = "complete" | "upstream_error" | "client_closed";

/**
 * Copies the upstream body to the client chunk by chunk, as it arrives: no re-chunking, no buffering beyond
 * socket backpressure. An upstream that dies mid-stream ends an event stream with exactly one error event and
 * nothing after it; any other body is cut short so the client can never take it for a complete reply.
 */
export function pipeBody(body: Readable, res: ServerResponse, options: PipeOptions): Promise<PipeOutcome> {
  const { family, isEventStream, onChunk } = options;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PipeOutcome) => {
      if (settled) return;
      settled = true;
      body.off("data", onData);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      const flowing = res.write(chunk);
      onChunk?.(chunk);
      if (!flowing) body.pause();
    };
    const onDrain = () => body.resume();
    const onClose = () => {
      if (res.writableFinished) return;
      body.destroy();
      settle("client_closed");
    };
    body.on("data", onData);
    body.once("end", () => {
      res.end();
      settle("complete");
    });
    body.once("error", (error) => {
      if (settled || res.destroyed) return settle("client_closed");
      if (isEventStream) {
        res.end(family.streamErrorEvent(midStreamError(error)));
      } else {
        res.destroy();
      }
      settle("upstream_error");
    });
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}
