import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { CaptureRecorder } from "../dashboard/capture-store.js";
import { ApiError } from "../errors/index.js";
import type { Usage } from "../formats/index.js";
import type { RequestRecord } from "../request-log/record.js";
import type { RequestSpan } from "../telemetry/request-tracer.js";
import { AbortSwitch } from "./abort-switch.js";

/**
 * What the client was sent, for the request's record: written only by the reply layer (`server/reply/`), each field
 * by the code that sent what it says, and read only by `record`.
 */
export interface Delivery {
  /** The status sent to the client; undefined until one was. */
  status: number | undefined;
  /** When the first body byte left. */
  firstByteAt: number | undefined;
  usage: Usage | undefined;
  /**
   * The characters of text, reasoning and tool calls a stream that reports no usage relayed (SPEC 11, Budgets: its
   * tokens are estimated from them); undefined when they were not counted.
   */
  relayedChars: number | undefined;
  /** `complete`, or why the reply ended early. */
  outcome: RequestRecord["outcome"];
  /** The upstream's reply headers, for `--verbose`. */
  replyHeaders: Record<string, string | string[] | undefined> | undefined;
  /** The gateway's own error the client was answered with (JSON, or the event that ended a stream). */
  error: ApiError | undefined;
  /** The upstreams a model list was asked of (a routed request's upstream is the router's and forward's to say). */
  listedBy: string | undefined;
}

/** One request from accept to last byte. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  /** Aborted when the client goes away, or with an `ApiError` as the reason when the gateway shuts down. */
  readonly abort: AbortSwitch;
  /** CORS headers for an allowed origin, added to every answer. */
  cors: Record<string, string>;
  /** Made on first use: only errors and records need one. */
  requestId: string | undefined;
  /** This request's capture, when captures are on and this one is kept. */
  capture: CaptureRecorder | undefined;
  /** Its span, when traces go over OTLP (SPEC 12). */
  span: RequestSpan | undefined;
  readonly delivery: Delivery;
}

export function createExchange(req: IncomingMessage, res: ServerResponse): Exchange {
  return {
    req,
    res,
    started: performance.now(),
    abort: new AbortSwitch(),
    cors: {},
    requestId: undefined,
    capture: undefined,
    span: undefined,
    delivery: {
      status: undefined,
      firstByteAt: undefined,
      usage: undefined,
      relayedChars: undefined,
      outcome: "complete",
      replyHeaders: undefined,
      error: undefined,
      listedBy: undefined,
    },
  };
}

/** Whether the client went away (its abort fired without the gateway's own reason, a shutdown). */
export const clientLeft = (x: Exchange): boolean => x.abort.aborted && !(x.abort.reason instanceof ApiError);
