import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { CaptureRecorder } from "../dashboard/capture-store.js";
import type { HttpError } from "../errors/index.js";
import type { ErrorFields, FamilyName, Format, Usage } from "../families/index.js";
import type { RequestRecord, TriedUpstream } from "../request-log/record.js";
import { AbortSwitch } from "./abort-switch.js";

/**
 * What the request record will say, written by the stages as they learn it and read only by `record` (stage 9).
 * Stages hand each other what they need as arguments and return values; this is the one place they write to.
 */
export interface RecordDraft {
  /** The path without its query (a query may carry `?key=`), dot segments resolved. */
  path: string;
  family: FamilyName | null;
  model: string | undefined;
  target: string | undefined;
  /** Whether the client asked for a streamed reply. */
  stream: boolean;
  upstream: string | undefined;
  /** Whether `upstream` is the built-in echo. */
  echo: boolean | undefined;
  /** The client's format, when its endpoint has one. */
  format: Format | undefined;
  /** The format `upstream` was asked in (the client's, or the one translated into). */
  upstreamFormat: Format | undefined;
  tried: TriedUpstream[];
  /** The status sent to the client; undefined until one was. */
  status: number | undefined;
  outcome: RequestRecord["outcome"];
  usage: Usage | undefined;
  firstByteAt: number | undefined;
  error: HttpError | undefined;
  replyHeaders: Record<string, string | string[] | undefined> | undefined;
  capture: CaptureRecorder | undefined;
}

/** One request from accept to last byte. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  /** Aborted when the client goes away, or with an `HttpError` as the reason when the gateway shuts down. */
  readonly abort: AbortSwitch;
  /** CORS headers for an allowed origin, added to every answer. */
  cors: Record<string, string>;
  /** Made on first use: only errors and records need one. */
  requestId: string | undefined;
  /** The translated event stream being written to the client, once there is one: a failure after it opened is its error event. */
  eventStream: { readonly opened: boolean; fail(error: ErrorFields): void } | undefined;
  readonly draft: RecordDraft;
}

export function createExchange(req: IncomingMessage, res: ServerResponse): Exchange {
  return {
    req,
    res,
    started: performance.now(),
    abort: new AbortSwitch(),
    cors: {},
    requestId: undefined,
    eventStream: undefined,
    draft: {
      path: "/",
      family: null,
      model: undefined,
      target: undefined,
      stream: false,
      upstream: undefined,
      echo: undefined,
      format: undefined,
      upstreamFormat: undefined,
      tried: [],
      status: undefined,
      outcome: "complete",
      usage: undefined,
      firstByteAt: undefined,
      error: undefined,
      replyHeaders: undefined,
      capture: undefined,
    },
  };
}
