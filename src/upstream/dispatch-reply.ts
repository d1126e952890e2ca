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

/** undici's `util.parseHeaders`. */
export type ParseHeaders = (raw: Buffer[]) => Record<string, string | string[] | undefined>;

/**
 * undici's handler interface as its HTTP/1.1 client calls it (the one `Dispatcher.request` itself is built on):
 * headers, then each chunk, then the end or an error. Backpressure is `onData`'s return value.
 */
class ReplyHandler {
  body: ReplyBody | undefined;
  abort: ((reason?: Error) => void) | undefined;
  /** Why the request was aborted before undici gave the handler a way to abort it. */
  reason: Error | undefined;
  readonly signal: AbortLike;
  readonly parseHeaders: ParseHeaders;
  readonly resolve: (reply: DispatchedReply) => void;
  readonly reject: (error: Error) => void;
  readonly onAbort = (): void => this.abortWith(this.signal.reason as Error);

  constructor(signal: AbortLike, parseHeaders: ParseHeaders, resolve: (reply: DispatchedReply) => void, reject: (error: Error) => void) {
    this.signal = signal;
    this.parseHeaders = parseHeaders;
    this.resolve = resolve;
    this.reject = reject;
    if (signal.aborted) this.reason = signal.reason as Error;
    else signal.addEventListener("abort", this.onAbort);
  }

  abortWith(reason: Error): void {
    if (this.abort) this.abort(reason);
    else this.reason ??= reason;
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.reason) abort(this.reason);
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx (a 100 Continue, 103 Early Hints): the real answer follows.
    if (statusCode < 200) return true;
    this.body = new ReplyBody(resume, (reason) => this.abort?.(reason));
    this.resolve({ statusCode, headers: this.parseHeaders(rawHeaders), body: this.body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.body!.push(chunk);
  }

  onComplete(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    this.body!.complete();
  }

  onError(error: Error): void {
    this.signal.removeEventListener("abort", this.onAbort);
    if (this.body) this.body.fail(error);
    else this.reject(error);
  }
}

/**
 * One request through `dispatcher.dispatch`, resolved at the reply's headers with a `ReplyBody` that undici's
 * parser feeds directly: `Dispatcher.request` made a Readable, a promise and an async resource per reply, which
 * measured about 40 µs a request against the proxy floor's own 40. `signal` aborts it, with its reason, whether
 * the reply's headers have come or not. `parseHeaders` is undici's (`util.parseHeaders`), passed in because undici
 * is loaded on first use.
 */
export function dispatchReply(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortLike, parseHeaders: ParseHeaders): Promise<DispatchedReply> {
  return new Promise((resolve, reject) => {
    const handler = new ReplyHandler(signal, parseHeaders, resolve, reject);
    dispatcher.dispatch(options, handler as unknown as Dispatcher.DispatchHandler);
  });
}
