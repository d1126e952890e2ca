import { NoUpstreamKeyError } from "../errors/index.js";

/**
 * Where an upstream's key comes from, behind one small interface, so the upstream client, `gateway chat` and the
 * tests do not care whether it is the environment, the OS keychain, or nothing (local servers, the echo upstream).
 */
export interface KeySource {
  /**
   * `none` sends no credential at all, `client` sends the client's own (SPEC 11, Your own login); the others must
   * produce a key or the request is not forwarded.
   */
  readonly kind: "keychain" | "env" | "none" | "client";
  /** The key as the config names it (`keychain`, `keychain:work`, `env:TEAM_KEY`): how records name it, never by value. */
  readonly name: string;
  /** Where the key comes from, for `status`; never the key itself. */
  readonly describe: string;
  /** The current key; may be cached. Undefined when none is needed or none is available. */
  get(): Promise<string | undefined>;
  /** Re-reads the key (after an upstream 401, the user may have run `gateway login`). */
  refresh(): Promise<string | undefined>;
  /** The error for a request that found no key: what is missing and how to fix it. */
  missing(upstream: string): NoUpstreamKeyError;
}

/** A fixed key, as given by `GATEWAY_API_KEY` for the default upstream. */
export function staticKeySource(key: string): KeySource {
  return {
    kind: "env",
    name: "env:GATEWAY_API_KEY",
    describe: "from GATEWAY_API_KEY (overrides the keychain)",
    get: async () => key,
    refresh: async () => key,
    missing: (upstream) => new NoUpstreamKeyError(upstream, `No upstream key is available for ${upstream}.`),
  };
}

/** `key: "env:<VAR>"`: read at every request, so a changed variable of a restarted shell is never stale. */
export function envKeySource(variable: string, env: NodeJS.ProcessEnv): KeySource {
  const read = async () => env[variable]?.trim() || undefined;
  return {
    kind: "env",
    name: `env:${variable}`,
    describe: `from $${variable} (${env[variable]?.trim() ? "set" : "unset"})`,
    get: read,
    refresh: read,
    missing: (upstream) =>
      new NoUpstreamKeyError(
        upstream,
        `The upstream ${upstream} takes its key from $${variable}, which is not set in the gateway's environment, so nothing is forwarded to it. Set ${variable} and restart the gateway.`,
      ),
  };
}

/** No key at all: local model servers (`key: "none"`) and the echo upstream. */
export const noKeySource: KeySource = {
  kind: "none",
  name: "none",
  describe: "none needed",
  get: async () => undefined,
  refresh: async () => undefined,
  missing: (upstream) => new NoUpstreamKeyError(upstream, `The upstream ${upstream} needs no key.`),
};

/** `key: "client"`: the gateway sends no key of its own; the client's own credential goes on (SPEC 11, Your own login). */
export const clientKeySource: KeySource = {
  kind: "client",
  name: "client",
  describe: "the client's own (key: client)",
  get: async () => undefined,
  refresh: async () => undefined,
  missing: (upstream) => new NoUpstreamKeyError(upstream, `The upstream ${upstream} uses the client's own credential.`),
};
