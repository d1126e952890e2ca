import type { Format } from "../formats/names.js";
import type { KindName } from "../kinds/types.js";
import type { TelemetryFields } from "./schemas/telemetry.js";
import type { CaptureMode } from "./schemas/values.js";

/** Upstream timeouts, in milliseconds. */
export interface Timeouts {
  /** TCP/TLS connect. @default 10_000 */
  connectMs: number;
  /** From request sent to the first response byte (a thinking model can take minutes). @default 600_000 */
  firstByteMs: number;
  /** Longest silence between two body chunks. @default 300_000 */
  idleMs: number;
}

/** The fields a config file, the environment or flags can set. None of them is a secret. */
export interface ConfigFields {
  /**
   * The default upstream's base URL, or `echo` for the built-in offline upstream. The sources may also name an
   * `upstreams` entry; the resolved config then holds that entry's URL (its name is `defaultUpstream`).
   * @default "echo"
   */
  upstream: string;
  /**
   * The path segment the messages family lives under, locally and at the `default` upstream; `""` for none.
   * @default "anthropic"
   */
  messagesSegment: string;
  /** The path segment the Gemini family lives under, locally and at the `default` upstream; `""` for none. @default "gemini" */
  geminiSegment: string;
  /** Local port; 0 picks a free one. @default 8484 */
  port: number;
  /** Local interface to bind. @default "127.0.0.1" */
  host: string;
  /** Browser origins allowed to call the gateway. @default [] */
  cors: readonly string[];
  /** Model used by `gateway chat` when `-m` is not given. */
  defaultModel: string | undefined;
  /** Pins the `anthropic-version` sent upstream, whatever the client sent. */
  anthropicVersion: string | undefined;
  /** Retries before the first byte (connection failures, 429, 5xx, 529). @default 2 */
  retries: number;
  timeouts: Timeouts;
  /** Largest request body accepted. @default 33_554_432 (32 MiB) */
  maxBodyBytes: number;
  /** How long a stopping gateway lets open requests finish (Ctrl-C, SIGTERM, `gateway stop`). @default 10_000 */
  shutdownGraceMs: number;
  /** Model aliases: the id a tool sends → the id the upstream catalog knows; keys may hold `*`. @default {} */
  models: Readonly<Record<string, string>>;
  /** Which requests keep their bodies in memory for the dashboard. @default "off" */
  capture: CaptureMode;
  /**
   * The user's own prices, for models the bundled price table lacks or prices differently: a model id (exact, or
   * with `*`) → US dollars per million tokens. They win over the table. @default {}
   */
  prices: Readonly<Record<string, ModelPrice>>;
  /** Rules that route a request by what it is (SPEC 11, Routes), tried in order; the first that holds decides. @default [] */
  routes: readonly RouteRule[];
  /** Caps on all spending, per local day and month (SPEC 11, Budgets). @default {} */
  budgets: Readonly<Budgets>;
  /** Where traces and metrics go over OTLP (SPEC 12); the `OTEL_*` variables win (`otlp-settings.ts`). @default {} */
  telemetry: Readonly<TelemetryFields>;
}

/** A token count, or a whole percentage of a model's context window from 1% to 100% (`"80%"`). */
export type TokenThreshold = number | `${number}%`;

/** The conditions of a route, each optional; a rule holds when every condition it has holds (SPEC 11, Routes). */
export interface RouteWhen {
  /** The model after its alias: an exact id or a pattern with `*`. */
  readonly model?: string | undefined;
  /** The client's format. */
  readonly format?: Format | undefined;
  /** A coding tool by name (`claude-code`, `codex`, `gemini-cli`, `qwen-code`), or a user-agent pattern with `*`. */
  readonly client?: string | undefined;
  /** Whether the request holds an image (tool results included). */
  readonly image?: boolean | undefined;
  /**
   * The request's input-token estimate (SPEC 10 rule 6) is at least this many tokens, or this share (`"80%"`) of the
   * context window of the model the request names (after its alias), as its upstream knows it (a team catalog's, SPEC 12).
   */
  readonly minInputTokens?: TokenThreshold | undefined;
  /** Whether the request asks for reasoning. */
  readonly thinking?: boolean | undefined;
  /** A tool the request declares: a name or a pattern with `*`. */
  readonly tools?: string | undefined;
  /** The NAME of a `<gateway-route>NAME</gateway-route>` tag opening its system prompt or first user message. */
  readonly tag?: string | undefined;
}

/** One rule of `routes`, resolved: its name filled in (`route-<n>` by default). */
export interface RouteRule {
  readonly name: string;
  readonly when: RouteWhen;
  /** The upstream it sends to (checked to exist). */
  readonly to: string;
  /** The model id it sends instead of the one asked for, as an alias would; undefined to keep it. */
  readonly model: string | undefined;
}

/** Spending caps in US dollars, from the estimated costs of recorded requests (SPEC 11, Budgets). */
export interface Budgets {
  /** Since the start of the local day. */
  readonly daily?: number | undefined;
  /** Since the start of the local month. */
  readonly monthly?: number | undefined;
}

/** What a million tokens of each kind cost, in US dollars. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Input tokens read from the prompt cache. @default input */
  readonly cacheRead?: number | undefined;
  /** Input tokens written to the prompt cache. @default input */
  readonly cacheWrite?: number | undefined;
}

/** One place a key of the gateway's comes from (SPEC section 10 `key`, SPEC 11 Several keys). */
export type KeySpec =
  /**
   * Stored by `gateway login <name>` in the OS keychain, account = the upstream's origin; a labelled one by
   * `gateway login <name> --label <label>`, account = `<origin>#<label>`.
   */
  | { kind: "keychain"; label?: string | undefined }
  /** Read from this environment variable at each request. */
  | { kind: "env"; variable: string };

/** Where an upstream's credential comes from (SPEC section 10 `key`, SPEC 11). */
export type UpstreamKey =
  | KeySpec
  /** No credential at all: local model servers. */
  | { kind: "none" }
  /** The client's own credential, sent on unchanged; the gateway adds none of its own (SPEC 11, Your own login). */
  | { kind: "client" }
  /** Several keys of the gateway's, taking turns (SPEC 11, Several keys). */
  | { kind: "several"; keys: readonly KeySpec[] };

/** The keys of the gateway's an upstream sends, in turn order: none for `none` and `client`. */
export const keySpecs = (key: UpstreamKey): readonly KeySpec[] => (key.kind === "several" ? key.keys : key.kind === "none" || key.kind === "client" ? [] : [key]);

/** A key as the config writes it, which is also how records and `status` name it (never by value): `keychain:work`, `env:TEAM_KEY`. */
export const keySpecName = (spec: KeySpec): string => (spec.kind === "env" ? `env:${spec.variable}` : spec.label === undefined ? "keychain" : `keychain:${spec.label}`);

/** One upstream, resolved: every field filled from its entry, the top-level defaults and the built-in ones. */
export interface UpstreamConfig {
  /** `default` for the upstream that `upstream` names by URL (or `echo`), else the `upstreams` entry's name. */
  readonly name: string;
  /** The kind of server (SPEC 11): what the fields the entry left out came from, and whose quirks apply. @default "generic" */
  readonly kind: KindName;
  /** Base URL without a trailing slash or a trailing `/v1` segment, or `echo`. @default the kind's usual address */
  readonly url: string;
  /**
   * The URL as the config gave it, when the gateway uses another: one ending in `/v1`, as providers write their base
   * URLs, is read as what precedes the `/v1`, which the gateway adds to every path itself. Undefined otherwise.
   */
  readonly urlAsGiven?: string | undefined;
  /** The formats it serves natively, in the order the config gave them. @default the kind's (generic: every format) */
  readonly formats: readonly Format[];
  /** `""` when the format lives directly under the base. @default "anthropic" (top-level value for `default`) */
  readonly messagesSegment: string;
  /** @default "gemini" (top-level value for `default`) */
  readonly geminiSegment: string;
  readonly key: UpstreamKey;
  /** Model ids it serves, exact or with `*`, in file order. */
  readonly models: readonly string[];
  /** Upstream names tried in order when this one fails before the first byte. */
  readonly fallback: readonly string[];
  /** `effort`: it accepts chat's `reasoning_effort`. */
  readonly reasoning: "effort" | undefined;
  /** Cap on the output-token limit of translated requests. */
  readonly maxOutputTokens: number | undefined;
  /** The context window of each model it serves, when the user knows it better than the server's model list says. */
  readonly contextWindow: number | undefined;
  /** Static, non-secret headers added to every request; they win over a client header of the same name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The header that carries its key in every format, when not the format's usual one (the value is the bare key). */
  readonly keyHeader: string | undefined;
  readonly retries: number;
  readonly timeouts: Readonly<Timeouts>;
  readonly anthropicVersion: string | undefined;
  /** Caps on what is spent at this upstream (SPEC 11, Budgets). @default {} */
  readonly budgets: Readonly<Budgets>;
  /** A team's gateway (SPEC 12, Team upstream): its catalog read, its budget shown, each request attributed. @default false */
  readonly team: boolean;
}

/** The resolved, validated, frozen configuration. */
export interface GatewayConfig extends Readonly<ConfigFields> {
  readonly timeouts: Readonly<Timeouts>;
  /**
   * Every upstream, resolved: the one `upstream` makes from a URL or `echo` (called `default`) first, then the
   * `upstreams` entries in file order. Always at least one.
   */
  readonly upstreams: readonly UpstreamConfig[];
  /** The name of the default upstream: `default`, or the entry `upstream` names, or the first entry. */
  readonly defaultUpstream: string;
  /** Where `config.json` and `local-key` live. */
  readonly configDir: string;
  readonly configFile: string;
  /** Where the request log, the running-gateway records and detached logs live. */
  readonly stateDir: string;
}

/** Secrets that may come from the environment; kept apart from the config so it can be printed. */
export interface EnvSecrets {
  /** `GATEWAY_API_KEY`: the upstream key; wins over the keychain. */
  upstreamKey: string | undefined;
  /** `GATEWAY_LOCAL_KEY`: the key local tools present. */
  localKey: string | undefined;
}

export const ECHO_UPSTREAM = "echo";

/**
 * The kind `status`, `/health` and the dashboard show: `echo` for the built-in echo upstream (resolved as a generic
 * entry, but no server of any kind: showing `generic` read as a real server), else the entry's kind.
 */
export const shownKind = (upstream: Pick<UpstreamConfig, "url" | "kind">): string => (upstream.url === ECHO_UPSTREAM ? ECHO_UPSTREAM : upstream.kind);

/** How a running gateway's record, `/health` and its errors name an upstream: `echo`, or its URL's origin. */
export const upstreamLabel = (url: string): string => (url === ECHO_UPSTREAM ? ECHO_UPSTREAM : new URL(url).origin);
