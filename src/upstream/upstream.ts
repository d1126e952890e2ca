import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { ECHO_UPSTREAM, type UpstreamConfig } from "../config/index.js";
import { pause, type AbortLike } from "./abort-like.js";
import { familyNamed, familyOf } from "../formats/families.js";
import { kindNamed } from "../kinds/index.js";
import type { Family, Format, Segments } from "../formats/index.js";
import { contextWindows } from "./context-windows.js";
import { dispatchReply, type DispatchedReply } from "./dispatch-reply.js";
import type { HeaderMap } from "./header-policy.js";
import type { KeySource } from "./key-source.js";
import type { Secrets } from "../secrets.js";
import { backoffDelay, isConnectionFailure, retryDelayFor } from "./retry-policy.js";
import type { ReplyBody } from "./reply-body.js";
import { toUpstreamError } from "./network-failure.js";

/** One request to an upstream, in one family; the body is in memory so it can be replayed. */
export interface UpstreamCall {
  /** The family of what is sent: its path layout, key header and version header. */
  family: Family;
  method: string;
  /** Path under the family's prefix, query included: `/v1/messages?beta=true`. */
  path: string;
  /** Client headers after the header policy (or the headers of a translated request). */
  headers: HeaderMap;
  /**
   * The `anthropic-version` the client sent (families that need one); when it sent none (a chat client's model list,
   * a key check), the family's `defaultVersion` goes, as Anthropic refuses any request without one.
   */
  version?: string | undefined;
  body?: Buffer | string | undefined;
  signal: AbortLike;
  /** Told of each request made, retries included, when its answer or failure came: for a capture. */
  onAttempt?: ((attempt: UpstreamAttempt) => void) | undefined;
}

/** One request to the upstream: its status, or why there was none; ms to its headers or its failure. */
export interface UpstreamAttempt {
  status?: number;
  failure?: string;
  ms: number;
}

/** The upstream's answer, body still unread. */
export interface UpstreamReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Fed by undici's parser: `relay` chunk by chunk, or `text()`/`json()`/`dump()`/`readable()`. */
  body: ReplyBody;
  /** Requests made, retries included. */
  attempts: number;
}

export interface UpstreamOptions {
  config: UpstreamConfig;
  /** Where requests go: the configured URL, or the echo server's. */
  base: URL;
  /** `echo`, or the base URL's origin: safe to print. */
  label: string;
  keySource: KeySource;
  /** Makes the connection pool; called once, on the first request. */
  dispatcher: () => Promise<Dispatcher>;
  /**
   * Told every key sent, so that what the gateway keeps (captures) can hide it wherever an upstream echoes it;
   * absent for a one-off key check, whose caller holds the key it checks.
   */
  secrets?: Secrets | undefined;
}

/**
 * One upstream: its base URL and path layout, the headers that carry its key (none at all for `key: "none"`), its
 * static headers, its own retries and connection pool. The only code that calls an upstream: it injects the key,
 * retries before the first byte, re-reads a rotated key after a 401, and passes the caller's abort signal to every
 * attempt and to the waits between them.
 */
export function createUpstream(options: UpstreamOptions) {
  const { config, base, keySource } = options;
  const origin = base.origin;
  const basePath = base.pathname === "/" ? "" : base.pathname.replace(/\/+$/, "");
  const segments: Segments = { messages: config.messagesSegment, gemini: config.geminiSegment };
  const formats: ReadonlySet<Format> = new Set(config.formats);
  const families: readonly Family[] = [...new Set(config.formats.map(familyOf))];
  // vLLM and OpenRouter check `Authorization: Bearer` on their messages endpoints too (see their kinds).
  const bearerAlways = kindNamed(config.kind).quirks.bearerInEveryFormat;
  const staticHeaders = Object.entries(config.headers).map(([name, value]) => [name.toLowerCase(), value] as const);
  let pool: Promise<Dispatcher> | undefined;
  // The pool once made: a request then reaches undici without waiting a turn for a settled promise.
  let ready: Dispatcher | undefined;

  function headersFor(call: UpstreamCall, key: string | undefined): HeaderMap {
    const headers: HeaderMap = { ...call.headers };
    if (key !== undefined) Object.assign(headers, config.keyHeader ? { [config.keyHeader]: key } : bearerAlways ? { authorization: `Bearer ${key}` } : call.family.auth.upstreamAuth(key));
    const { defaultVersion } = call.family.auth;
    if (defaultVersion !== undefined) headers["anthropic-version"] = config.anthropicVersion ?? call.version ?? defaultVersion;
    // Static headers win over a client's header of the same name (SPEC 10, Details).
    for (const [name, value] of staticHeaders) headers[name] = value;
    return headers;
  }

  async function attempt(call: UpstreamCall, key: string | undefined): Promise<DispatchedReply> {
    // undici loads with the first request: see `create-dispatcher.ts`.
    pool ??= options.dispatcher().then((dispatcher) => (ready = dispatcher));
    const dispatcher = ready ?? (await pool);
    const request = {
      origin,
      path: `${basePath}${call.family.paths.prefix(segments)}${call.path}`,
      method: call.method as Dispatcher.HttpMethod,
      headers: headersFor(call, key),
      body: call.body,
    };
    return dispatchReply(dispatcher, request, call.signal);
  }

  async function send(call: UpstreamCall): Promise<UpstreamReply> {
    let key = await keySource.get();
    // Forwarding without a credential would only earn the upstream's own 401 (SPEC section 8).
    if (key === undefined && keySource.kind !== "none") throw keySource.missing(config.name);
    options.secrets?.remember(key);
    let keyRefreshed = false;
    for (let attempts = 1; ; attempts++) {
      let response: DispatchedReply;
      const began = performance.now();
      try {
        response = await attempt(call, key);
      } catch (error) {
        if (call.signal.aborted) throw error;
        const failure = toUpstreamError(error, config.name, options.label);
        call.onAttempt?.({ failure: failure.failure, ms: performance.now() - began });
        if (attempts <= config.retries && isConnectionFailure(error)) {
          await pause(backoffDelay(attempts - 1), call.signal);
          continue;
        }
        throw failure;
      }
      call.onAttempt?.({ status: response.statusCode, ms: performance.now() - began });
      if (response.statusCode === 401 && !keyRefreshed && keySource.kind === "keychain") {
        keyRefreshed = true;
        const fresh = await keySource.refresh();
        if (fresh && fresh !== key) {
          key = fresh;
          options.secrets?.remember(key);
          await response.body.dump();
          continue;
        }
      }
      const delay = attempts <= config.retries ? retryDelayFor(response.statusCode, response.headers["retry-after"], attempts - 1) : undefined;
      if (delay === undefined) return { status: response.statusCode, headers: response.headers, body: response.body, attempts };
      await response.body.dump();
      await pause(delay, call.signal);
    }
  }

  const { modelList } = kindNamed(config.kind);
  const windows = modelList.contextField === undefined || config.url === ECHO_UPSTREAM ? undefined : contextWindows(send, familyNamed(modelList.family), modelList.contextField, config.timeouts.firstByteMs);

  return {
    name: config.name,
    label: options.label,
    /** The built-in echo upstream: offline, and free. */
    isEcho: config.url === ECHO_UPSTREAM,
    config,
    keySource,
    /** The segments its families live under (`""`: directly under the base). */
    segments,
    /** Whether it serves `format` natively (SPEC 10, `formats`). */
    serves: (format: Format): boolean => formats.has(format),
    /** The families of the formats it serves, in config order: the model-list shapes it answers. */
    families,
    send,
    /** The context window of `model` where the kind's model list says it (`context-windows.ts`); undefined otherwise. */
    contextWindow: (model: string): number | undefined => windows?.of(model),
    close: async (): Promise<void> => (await pool)?.close(),
  };
}

export type Upstream = ReturnType<typeof createUpstream>;
