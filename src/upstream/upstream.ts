import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { ECHO_UPSTREAM, keySpecs, type UpstreamConfig } from "../config/index.js";
import { pause, type AbortLike } from "./abort-like.js";
import { familyNamed, familyOf } from "../formats/families.js";
import { kindNamed } from "../kinds/index.js";
import type { Family, Format, Segments } from "../formats/index.js";
import type { CatalogModel, TeamCatalog } from "./team-catalog.js";
import { contextWindows } from "./context-windows.js";
import { dispatchReply, type DispatchedReply } from "./dispatch-reply.js";
import type { HeaderMap } from "./header-policy.js";
import { KeyRing, type TakenKey } from "./key-ring.js";
import type { KeySource } from "./key-source.js";
import type { Secrets } from "../secrets.js";
import { backoffDelay, isConnectionFailure, retryDelayFor } from "./retry-policy.js";
import { ReplyBody } from "./reply-body.js";
import { SENT_ONCE_FROM, sentOnce } from "./sent-once.js";
import { mayRefuseKey, refusesKey } from "./key-refusal.js";
import { toUpstreamError } from "./network-failure.js";
import { UpstreamKeysRestingError } from "../errors/index.js";
import { withSteadyRefusal } from "./steady-refusal.js";

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
  /**
   * Bytes, built once: each attempt sends this buffer as it is, where a string would be encoded again on every
   * attempt (nodejs/undici lib/core/request.js: `Buffer.from(body)` for a string, a Buffer taken as it is) and kept
   * beside its bytes.
   */
  body?: Buffer | undefined;
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
  /** The key that was answered, as the config names it, when the upstream has several (SPEC 11): never its value. */
  key: string | undefined;
}

export interface UpstreamOptions {
  config: UpstreamConfig;
  /** Where requests go: the configured URL, or the echo server's. */
  base: URL;
  /** `echo`, or the base URL's origin: safe to print. */
  label: string;
  /** Where its key comes from: one source, or several taking turns (SPEC 11, Several keys). */
  keySource: KeySource | readonly KeySource[];
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
  const { config, base } = options;
  const keys = new KeyRing(Array.isArray(options.keySource) ? options.keySource : [options.keySource as KeySource]);
  const origin = base.origin;
  const basePath = base.pathname === "/" ? "" : base.pathname.replace(/\/+$/, "");
  const segments: Segments = { messages: config.messagesSegment, gemini: config.geminiSegment };
  const formats: ReadonlySet<Format> = new Set(config.formats);
  const families: readonly Family[] = [...new Set(config.formats.map(familyOf))];
  // vLLM and OpenRouter check `Authorization: Bearer` on their messages endpoints too (see their kinds).
  const { bearerInEveryFormat: bearerAlways, steadyRefusals } = kindNamed(config.kind).quirks;
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
    const { body } = call;
    const headers = headersFor(call, key);
    // A stream is sent with its length, never chunked: the upstream gets the same request either way.
    const letGo = body !== undefined && body.length >= SENT_ONCE_FROM;
    if (letGo) headers["content-length"] = String(body.length);
    const request = {
      origin,
      path: `${basePath}${call.family.paths.prefix(segments)}${call.path}`,
      method: call.method as Dispatcher.HttpMethod,
      headers,
      body: letGo ? sentOnce(body) : body,
    };
    return dispatchReply(dispatcher, request, call.signal);
  }

  /** The key for the next attempt, remembered for redaction; a missing one stops the request (SPEC section 8). */
  async function takeKey(): Promise<TakenKey> {
    const taken = await keys.take();
    // Forwarding without a credential would only earn the upstream's own 401.
    if (taken.value === undefined && taken.key.source.kind !== "none" && taken.key.source.kind !== "client") throw keys.missing(config.name);
    options.secrets?.remember(taken.value);
    return taken;
  }

  async function send(call: UpstreamCall): Promise<UpstreamReply> {
    const resting = keys.restingUntil();
    if (resting !== undefined) throw new UpstreamKeysRestingError(config.name, resting - Date.now());
    let taken = await takeKey();
    // The keys this round has tried: each takes the request once per round, so keys that rest for no time at all
    // (`retry-after: 0`, or a date already past) cannot hand it back and forth forever.
    const tried = new Set([taken.key]);
    let keyRefreshed = false;
    let retries = 0;
    for (let attempts = 1; ; attempts++) {
      let response: DispatchedReply;
      const began = performance.now();
      try {
        response = await attempt(call, taken.value);
      } catch (error) {
        if (call.signal.aborted) throw error;
        const failure = toUpstreamError(error, config.name, options.label);
        call.onAttempt?.({ failure: failure.failure, ms: performance.now() - began });
        if (retries < config.retries && isConnectionFailure(error)) {
          await pause(backoffDelay(retries++), call.signal);
          continue;
        }
        throw failure;
      }
      call.onAttempt?.({ status: response.statusCode, ms: performance.now() - began });
      // SPEC 11: a refusal a retry would repeat is a 400 from here on, which nothing retries or falls back from.
      response = await withSteadyRefusal(steadyRefusals, call.family, response).catch((error: unknown) => {
        throw call.signal.aborted ? error : toUpstreamError(error, config.name, options.label);
      });
      const status = response.statusCode;
      if (status === 401 && !keyRefreshed && taken.key.source.kind === "keychain") {
        keyRefreshed = true;
        const fresh = await taken.key.source.refresh();
        if (fresh && fresh !== taken.value) {
          taken = { key: taken.key, value: fresh, awake: true };
          options.secrets?.remember(fresh);
          await response.body.dump();
          continue;
        }
      }
      // SPEC 11, Several keys: a rested key hands the same request to the next awake key at once; the retries and
      // their waits below apply only once every key rests. A key refused in a status that does not say so (LiteLLM's
      // 400 `no_db_connection`, `key-refusal.ts`) rests as a 401 would: its body is read to tell, and handed on whole.
      let keyStatus = status;
      if (keys.several && status !== 401 && status !== 403 && mayRefuseKey(status)) {
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) chunks.push(chunk);
        const bytes = Buffer.concat(chunks);
        if (refusesKey(status, bytes.toString())) keyStatus = 401;
        response = { ...response, body: ReplyBody.of(bytes) };
      }
      if (keys.answered(taken, keyStatus, response.headers["retry-after"])) {
        const next = await takeKey();
        if (next.awake && !tried.has(next.key)) {
          tried.add(next.key);
          taken = next;
          keyRefreshed = false;
          await response.body.dump();
          continue;
        }
      }
      const delay = retries < config.retries ? retryDelayFor(status, response.headers["retry-after"], retries) : undefined;
      if (delay === undefined) {
        // SPEC 11: once every key rests, the answer names the soonest wake, not the last key's own retry-after.
        const wakes = keys.restingUntil();
        if (wakes !== undefined) response.headers["retry-after"] = String(Math.max(1, Math.ceil((wakes - Date.now()) / 1000)));
        return { status, headers: response.headers, body: response.body, attempts, key: keys.several ? taken.key.source.name : undefined };
      }
      retries++;
      await response.body.dump();
      await pause(delay, call.signal);
      tried.clear();
      if (keys.several) taken = await takeKey();
      tried.add(taken.key);
    }
  }

  const { modelList } = kindNamed(config.kind);
  // A server of a known kind lists its models in one shape whatever is asked (DeepSeek only at /v1/models, Ollama in
  // OpenAI's shape even to an Anthropic client): ask it in that shape. A generic one (another gateway, a proxy)
  // answers the shape it is asked in, where it serves it.
  const kindShape = config.kind === "generic" ? undefined : families.find((family) => family.name === modelList.family);
  const listFamily = familyNamed(modelList.family);
  const listModels = (signal: AbortSignal) => send({ family: listFamily, method: "GET", path: listFamily.models.path, headers: { accept: "application/json" }, version: undefined, signal });
  const windows = modelList.contextField === undefined || config.url === ECHO_UPSTREAM ? undefined : contextWindows(listModels, listFamily, modelList.contextField, config.timeouts.firstByteMs);
  /** A team upstream's catalog in use (SPEC 12), by model id: set at start and on a refresh. */
  let catalog: { read: TeamCatalog; byId: ReadonlyMap<string, CatalogModel> } | undefined;

  return {
    name: config.name,
    label: options.label,
    /** The built-in echo upstream: offline, and free. */
    isEcho: config.url === ECHO_UPSTREAM,
    /** A local server (`ollama`, `vllm`, `llamacpp`, `lmstudio`): it costs nothing unless `prices` names the model (SPEC 11). */
    isLocal: kindNamed(config.kind).local,
    /** Whether it spends a key of the gateway's (not echo, `none` or `client`): a request with its own credential never reaches it (SPEC 11). */
    usesGatewayKey: config.url !== ECHO_UPSTREAM && keySpecs(config.key).length > 0,
    /** `key: "client"`: a request's own credential goes to it unchanged (SPEC 11, Your own login). */
    takesClientCredential: config.key.kind === "client",
    config,
    /** Its keys, in turn order (one for most upstreams). */
    keys,
    /** The segments its families live under (`""`: directly under the base). */
    segments,
    /** Whether it serves `format` natively (SPEC 10, `formats`). */
    serves: (format: Format): boolean => formats.has(format),
    /** The families of the formats it serves, in config order. */
    families,
    /** The shape to ask its model list in for a list asked in `family` (SPEC 11, Kinds: a kind's model list shape). */
    listShape: (family: Family): Family => kindShape ?? (families.includes(family) ? family : families[0]!),
    send,
    /**
     * The context window of `model`, the one answer to that question (translated requests, routes and the tools'
     * model lists ask it): the entry's `contextWindow` when the config sets one, else its team catalog's (SPEC 12),
     * else where the kind's model list says it (`context-windows.ts`); undefined otherwise.
     */
    contextWindow: (model: string): number | undefined => config.contextWindow ?? catalog?.byId.get(model)?.contextWindow ?? windows?.of(model),
    /** The team catalog in use; undefined for an upstream that is not a team's, or whose catalog was never read. */
    catalog: (): TeamCatalog | undefined => catalog?.read,
    /** Uses `read` as its team catalog from now on. */
    useCatalog(read: TeamCatalog): void {
      catalog = { read, byId: new Map(read.models.map((model) => [model.id, model])) };
    },
    /** Learns the windows a model list read in the kind's list shape gives (a model-list request's, read anyway). */
    learnWindows: (entries: readonly Record<string, unknown>[]): void => windows?.learn(entries),
    close: async (): Promise<void> => (await pool)?.close(),
  };
}

export type Upstream = ReturnType<typeof createUpstream>;
