import type { ApiError } from "../../errors/index.js";
import type { UpstreamReply } from "../../upstream/upstream.js";

/**
 * Step 8 of the request path (docs/ARCHITECTURE.md).
 * How one route's reply reaches the client: made with the route's plan (one per upstream tried), told when the
 * request goes out and when the upstream has answered or failed, then handed the reply to deliver. A transform that
 * has sent the client anything (a slow translated stream that started early) is committed: the request falls back
 * no further, and a failure after that is its last event, never a JSON answer.
 */
export interface ReplyTransform {
  /** The request is going out to `upstream` (a transform that starts early counts from here). */
  sending(upstream: string): void;
  /** The upstream answered or failed: what `sending` started stops. */
  settled(): void;
  /** Whether the client has been sent anything. */
  committed(): boolean;
  /**
   * Sends the reply to the client. An upstream error reply that can still be answered in JSON is thrown, as an
   * `ApiError` carrying the upstream's headers; a failure once the client's reply has started ends it instead.
   */
  deliver(reply: UpstreamReply): Promise<void>;
  /** Ends a committed reply with `error` as its last event. */
  fail(error: ApiError): void;
  /**
   * Whether the request's values are read again once the reply is delivered (a stream that reports no usage has its
   * input estimated from the request, SPEC 11, Budgets): its parse is then kept (`ClientRequest.release`).
   */
  readonly estimatesInput?: boolean;
}

/**
 * A reply that starts only once the upstream has answered (passthrough, a whole translated reply, a local count):
 * nothing to start early, and never committed before `deliver`, so nothing ever asks it to fail.
 */
export abstract class ReplyOnAnswer implements ReplyTransform {
  sending(): void {}

  settled(): void {}

  committed(): boolean {
    return false;
  }

  abstract deliver(reply: UpstreamReply): Promise<void>;

  fail(error: ApiError): void {
    throw new Error(`A reply that has not started cannot end with an error event (${error.code}).`, { cause: error });
  }
}
