import type { Dispatcher } from "undici";
import type { AbortLike } from "./abort-like.js";
import { ReplyBody } from "./reply-body.js";

/** What `dispatchReply` resolves with once the upstream's status and headers are in. */
export interface DispatchedReply {
  statusCode: number;
  /** Lower-case names; a repeated header's values as an array (undici's `parseHeaders`). */
  headers: Record<string, string | string[] | undefined>;
  body: ReplyBody;
}

/**
 * The handler methods undici's current API calls, each required: a misspelt or missing one is a type error, and so
 * is one undici stops declaring. (Every method of `Dispatcher.DispatchHandler` is optional, so `implements` alone
 * would accept a handler undici never calls; the deprecated `onConnect`/`onHeaders`/`onData`/`onComplete` work in
 * undici 7 only through a wrapper that undici 8 drops.)
 */
type ReplyHandlerMethods = Required<Pick<Dispatcher.DispatchHandler, "onRequestStart" | "onResponseStart" | "onResponseData" | "onResponseEnd" | "onResponseError">>;

/**
 * undici's handler interface: the request starts (with the controller that pauses, resumes and aborts it), the
 * reply's status and headers, each chunk, then the end or an error. Backpressure is the controller's `pause`.
 */
class ReplyHandler implements ReplyHandlerMethods {
  body: ReplyBody | undefined;
  controller: Dispatcher.DispatchController | undefined;
  /** Why the request was aborted before undici gave the handler its controller. */
  reason: Error | undefined;
  readonly signal: AbortLike;
  readonly resolve: (reply: DispatchedReply) => void;
  readonly reject: (error: Error) => void;
  readonly onAbort = (): void => this.abortWith(this.signal.reason as Error);

  constructor(signal: AbortLike, resolve: (reply: DispatchedReply) => void, reject: (error: Error) => void) {
    this.signal = signal;
    this.resolve = resolve;
    this.reject = reject;
    if (signal.aborted) this.reason = signal.reason as Error;
    else signal.addEventListener("abort", this.onAbort);
  }

  abortWith(reason: Error): void {
    if (this.controller) this.controller.abort(reason);
    else this.reason ??= reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.reason) controller.abort(this.reason);
    else this.controller = controller;
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx (a 100 Continue, 103 Early Hints): the real answer follows.
    if (statusCode < 200) return;
    this.body = new ReplyBody(controller);
    this.resolve({ statusCode, headers, body: this.body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.body!.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    this.body!.complete();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.signal.removeEventListener("abort", this.onAbort);
    if (this.body) this.body.fail(error);
    else this.reject(error);
  }
}

/**
 * One request through `dispatcher.dispatch`, resolved at the reply's headers with a `ReplyBody` that undici's
 * parser feeds directly: `Dispatcher.request` made a Readable, a promise and an async resource per reply, which
 * measured about 40 µs a request against the proxy floor's own 40. `signal` aborts it, with its reason, whether
 * the reply's headers have come or not.
 */
export function dispatchReply(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortLike): Promise<DispatchedReply> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new ReplyHandler(signal, resolve, reject));
  });
}
