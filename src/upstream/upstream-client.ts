import { setTimeout as sleep } from "node:timers/promises";
import type { Dispatcher } from "undici";
import { noUpstreamKey } from "../errors/index.js";
import type { Family } from "../families/index.js";
import type { HeaderMap } from "./header-policy.js";
import type { KeySource } from "./key-source.js";
import { backoffDelay, isConnectionFailure, retryDelayFor } from "./retry-policy.js";
import { toGatewayError } from "./upstream-errors.js";

/** Where requests go: a base URL and how it is shown to the user. */
export interface UpstreamTarget {
  /** Base URL without trailing slash, e.g. `https://gateway.example.com` or the echo server's URL. */
  readonly base: URL;
  /** `echo` or the upstream origin; safe to print. */
  readonly label: string;
}

export interface UpstreamClientOptions {
  target: UpstreamTarget;
  /** Makes the connection pool; called once, on the first request. */
  dispatcher: () => Promise<Dispatcher>;
  keySource: KeySource;
  /** Retries before the first byte. @default 2 */
  retries: number;
  /** Pins `anthropic-version` for the messages family. */
  anthropicVersion?: string | undefined;
}

/** One request to the upstream; the body is in memory so it can be replayed. */
export interface UpstreamCall {
  family: Family;
  method: string;
  /** Path under the base, family prefix and query included. */
  path: string;
  /** Client headers after the header policy. */
  headers: HeaderMap;
  /** The `anthropic-version` the client sent (families that need one). */
  version?: string | undefined;
  body?: Buffer | string | undefined;
  signal: AbortSignal;
}

/** The upstream's answer, body still unread. */
export interface UpstreamReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** undici's body: a Node Readable that also has `text()`/`json()`. */
  body: Dispatcher.ResponseData["body"];
  /** Requests made, retries included. */
  attempts: number;
}

/**
 * The only code that calls the upstream. It injects the key, retries before the first byte, re-reads a rotated
 * key after a 401, and passes the caller's abort signal to every attempt (and to the waits between them).
 */
export function createUpstreamClient(options: UpstreamClientOptions) {
  const { target, keySource, retries } = options;
  let dispatcher: Promise<Dispatcher> | undefined;
  const origin = target.base.origin;
  const basePath = target.base.pathname === "/" ? "" : target.base.pathname;

  function headersFor(call: UpstreamCall, key: string | undefined): HeaderMap {
    const headers: HeaderMap = { ...call.headers };
    if (key) Object.assign(headers, call.family.upstreamAuth(key));
    const version = options.anthropicVersion ?? call.version;
    if (call.family.needsVersion && version) headers["anthropic-version"] = version;
    return headers;
  }

  async function attempt(call: UpstreamCall, key: string | undefined): Promise<Dispatcher.ResponseData> {
    dispatcher ??= options.dispatcher();
    return (await dispatcher).request({
      origin,
      path: `${basePath}${call.path}`,
      method: call.method as Dispatcher.HttpMethod,
      headers: headersFor(call, key),
      body: call.body,
      signal: call.signal,
    });
  }

  async function send(call: UpstreamCall): Promise<UpstreamReply> {
    let key = await keySource.get();
    // Forwarding without a credential would only earn the upstream's own 401 (SPEC section 8).
    if (key === undefined && keySource.origin !== "none") throw noUpstreamKey(target.label);
    let keyRefreshed = false;
    for (let attempts = 1; ; attempts++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await attempt(call, key);
      } catch (error) {
        if (call.signal.aborted) throw error;
        if (attempts <= retries && isConnectionFailure(error)) {
          await sleep(backoffDelay(attempts - 1), undefined, { signal: call.signal });
          continue;
        }
        throw toGatewayError(error, target);
      }
      if (response.statusCode === 401 && !keyRefreshed && keySource.origin === "keychain") {
        keyRefreshed = true;
        const fresh = await keySource.refresh();
        if (fresh && fresh !== key) {
          key = fresh;
          await response.body.dump();
          continue;
        }
      }
      const delay = attempts <= retries ? retryDelayFor(response.statusCode, response.headers["retry-after"], attempts - 1) : undefined;
      if (delay === undefined) {
        return { status: response.statusCode, headers: response.headers, body: response.body, attempts };
      }
      await response.body.dump();
      await sleep(delay, undefined, { signal: call.signal });
    }
  }

  return { target, send, close: async () => (await dispatcher)?.close() };
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>;
