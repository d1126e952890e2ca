import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import type { CaptureRecorder } from "../dashboard/capture-store.js";
import { ApiError } from "../errors/index.js";
import type { Usage } from "../formats/index.js";
import type { RequestRecord } from "../request-log/record.js";
import type { RequestSpan } from "../telemetry/request-tracer.js";
import { AbortSwitch } from "./abort-switch.js";
import type { ReplySink } from "./reply/sink.js";

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
  /**
   * The input estimate a translation made of its hub (SPEC 10 rule 6's quick count), kept for a reply that reports no
   * usage; undefined where the record asks the request itself (a passthrough keeps its parse for that).
   */
  inputEstimate: number | undefined;
  /** `complete`, or why the reply ended early. */
  outcome: RequestRecord["outcome"];
  /** The upstream's reply headers, for `--verbose`. */
  replyHeaders: Record<string, string | string[] | undefined> | undefined;
  /** The gateway's own error the client was answered with (JSON, or the event that ended a stream). */
  error: ApiError | undefined;
  /** The upstreams a model list was asked of (a routed request's upstream is the router's and forward's to say). */
  listedBy: string | undefined;
}

/**
 * What a request says of itself before its body, read once from whatever carried it (issue 48, item 3): a node:http
 * request, or a WebSocket message standing for a `POST` (its upgrade request's headers).
 */
export interface RequestHead {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Names and values in the order they came, repeats kept. */
  readonly rawHeaders: readonly string[];
  /** `websocket` for a message on Codex's Responses WebSocket; absent for HTTP. */
  readonly transport?: "websocket";
}

/**
 * Step 1 of the request path (docs/ARCHITECTURE.md).
 * A node:http request's head.
 */
export const headOf = (req: IncomingMessage): RequestHead => ({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, rawHeaders: req.rawHeaders });

/** One request from accept to last byte. */
export interface Exchange {
  readonly head: RequestHead;
  /** Where the reply goes. */
  readonly sink: ReplySink;
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

export function createExchange(head: RequestHead, sink: ReplySink): Exchange {
  return {
    head,
    sink,
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
      inputEstimate: undefined,
      outcome: "complete",
      replyHeaders: undefined,
      error: undefined,
      listedBy: undefined,
    },
  };
}

/** Whether the client went away (its abort fired without the gateway's own reason, a shutdown). */
export const clientLeft = (x: Exchange): boolean => x.abort.aborted && !(x.abort.reason instanceof ApiError);
