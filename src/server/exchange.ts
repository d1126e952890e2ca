import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { chatFamily, type Claim, type Family } from "../families/index.js";
import type { CaptureRecorder } from "../dashboard/capture-store.js";
import type { UpstreamReply } from "../upstream/upstream-client.js";

/**
 * One request from accept to last byte: what each stage learns is written here for the stages after it and
 * for the request record. Stages fill it in order (SPEC section 3); fields are undefined until their stage ran.
 */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  /** Made on first use: only errors and request records need one, not the proxied hot path. */
  requestId: string | undefined;
  /** Decided from the path before any check, so every error is in the caller's shape. */
  family: Family;
  /** The path without its query (a query may carry `?key=`), dot segments resolved: what logs show. */
  path: string;
  /** `?...` as the client sent it, or `""`. */
  query: string;
  claim: Claim | undefined;
  /** A header that must come once and came twice (SPEC section 3), found once by the guard stage. */
  repeatedHeader: string | undefined;
  /** CORS headers for an allowed origin, added to every answer. */
  cors: Record<string, string>;
  /** The request body, exactly as it goes upstream (an alias rewrite replaces only the model's bytes). */
  body: Buffer | undefined;
  /** The model the client asked for, and the catalog id an alias turned it into. */
  model: string | undefined;
  aliasTarget: string | undefined;
  /** The upstream's answer once its headers arrived. */
  reply: UpstreamReply | undefined;
  firstByteAt: number | undefined;
  /** Keeps the bodies for the dashboard when capture is on (`--capture`). */
  capture: CaptureRecorder | undefined;
  /** Aborted when the client goes away, or with a `GatewayError` as reason when the gateway shuts down. */
  readonly abort: AbortController;
}

export function createExchange(req: IncomingMessage, res: ServerResponse): Exchange {
  return {
    req,
    res,
    started: performance.now(),
    requestId: undefined,
    family: chatFamily,
    path: "/",
    query: "",
    claim: undefined,
    repeatedHeader: undefined,
    cors: {},
    body: undefined,
    model: undefined,
    aliasTarget: undefined,
    reply: undefined,
    firstByteAt: undefined,
    capture: undefined,
    abort: new AbortController(),
  };
}
