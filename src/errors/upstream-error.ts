import { GatewayError, type GatewayErrorOptions } from "./gateway-error.js";

/**
 * What the upstream layer throws: it never speaks HTTP to the local client itself. `toApiError` gives
 * each kind its status (SPEC section 4), `cli/render-error.ts` its exit code. `upstream` is the upstream's name.
 */
export abstract class UpstreamError extends GatewayError {
  abstract readonly kind: "unreachable" | "timeout" | "no_key" | "status" | "resting";
  readonly upstream: string;

  constructor(upstream: string, message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.upstream = upstream;
  }

  /** The failure in a word or two, for records and captures: `unreachable`, `timeout`, `no key`. */
  get failure(): string {
    return this.kind === "no_key" ? "no key" : this.kind === "resting" ? "keys resting" : this.kind;
  }
}

/** No response at all: refused, reset, unresolvable, TLS, or a reply that could not be read. */
export class UpstreamUnreachableError extends UpstreamError {
  readonly kind = "unreachable";
}

/** A connect, first-byte or idle timeout fired. */
export class UpstreamTimeoutError extends UpstreamError {
  readonly kind = "timeout";
}

/** A real upstream whose key is not available (not stored, an empty `env:` variable): nothing is forwarded (SPEC section 8). */
export class NoUpstreamKeyError extends UpstreamError {
  readonly kind = "no_key";
}

/**
 * Every key of the upstream rests (SPEC 11, Several keys): nothing was sent to it. Answered 429 with `retry-after`
 * until the first key wakes, unless the request falls back.
 */
export class UpstreamKeysRestingError extends UpstreamError {
  readonly kind = "resting";
  readonly retryAfterSeconds: number;

  constructor(upstream: string, wakesInMs: number) {
    const seconds = Math.max(1, Math.ceil(wakesInMs / 1000));
    super(
      upstream,
      `Every key of the upstream ${upstream} is resting after the upstream refused it (429, or a key refused after it had worked), so the request was not sent. The first key wakes in ${seconds} s: try again then, or add a key with \`gateway login ${upstream} --label <label>\` and list it in its "key".`,
    );
    this.retryAfterSeconds = seconds;
  }
}

/** The upstream answered with an error status (the terminal client's view of it: `gateway chat`, `login`). */
export class UpstreamStatusError extends UpstreamError {
  readonly kind = "status";
  readonly status: number;
  /** The upstream's own message, when its body had one. */
  readonly upstreamMessage: string | undefined;
  /** The answer refused the key it was sent (401, 403, or the kind's own word for it: `upstream/key-refusal.ts`). */
  readonly keyRefused: boolean;

  constructor(upstream: string, status: number, message: string, options: GatewayErrorOptions & { upstreamMessage?: string | undefined; keyRefused?: boolean } = {}) {
    super(upstream, message, options);
    this.status = status;
    this.upstreamMessage = options.upstreamMessage;
    this.keyRefused = options.keyRefused === true;
  }
}
