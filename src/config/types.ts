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
  /** Upstream base URL, or `echo` for the built-in offline upstream. @default "echo" */
  upstream: string;
  /** The path segment the messages family lives under, upstream and locally. @default "anthropic" */
  messagesSegment: string;
  /** The path segment the Gemini family lives under, upstream and locally. @default "gemini" */
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
  /** Model aliases: the id a tool sends → the id the upstream catalog knows; keys may hold `*`. @default {} */
  models: Readonly<Record<string, string>>;
  /** Which requests keep their bodies in memory for the dashboard. @default "off" */
  capture: CaptureMode;
}

/** `off`, `errors` (requests that failed) or `all`. */
export const CAPTURE_MODES = ["off", "errors", "all"] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

/** The resolved, validated, frozen configuration. */
export interface GatewayConfig extends Readonly<ConfigFields> {
  readonly timeouts: Readonly<Timeouts>;
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
