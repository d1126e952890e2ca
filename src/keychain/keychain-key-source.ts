import { NoUpstreamKeyError } from "../errors/index.js";
import type { KeySource } from "../upstream/key-source.js";
import type { KeyStore } from "./key-store.js";

/** How long a key read from the keychain is trusted before it is read again (keys rotate). */
export const KEY_TTL_MS = 5_000;

export interface KeychainKeyOptions {
  /** A key already read (at start-up), trusted for one `ttlMs`. */
  initial?: string | undefined;
  /** @default KEY_TTL_MS */
  ttlMs?: number | undefined;
  /** The command that stores this upstream's key: `gateway login`, or `gateway login <name>`. */
  login: string;
  /** Whether `GATEWAY_API_KEY` would serve too (the default upstream only). */
  envAlternative: boolean;
  /** The key as the config names it: `keychain`, or `keychain:<label>`. @default "keychain" */
  name?: string | undefined;
}

/**
 * The upstream key from the keychain, re-read at most every `ttlMs` and at once after a 401, so that a new
 * `gateway login` takes effect in a running gateway without a restart. Concurrent reads share one call.
 */
export function keychainKeySource(store: KeyStore, account: string, options: KeychainKeyOptions): KeySource {
  const ttlMs = options.ttlMs ?? KEY_TTL_MS;
  let key = options.initial;
  let readAt = key === undefined ? 0 : Date.now();
  let pending: Promise<string | undefined> | undefined;

  function read(): Promise<string | undefined> {
    pending ??= store
      .get(account)
      .then((fresh) => {
        key = fresh;
        readAt = Date.now();
        return fresh;
      })
      .catch(() => key)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  }

  return {
    kind: "keychain",
    name: options.name ?? "keychain",
    describe: `stored in the OS keychain for ${account}`,
    get: () => (Date.now() - readAt < ttlMs ? Promise.resolve(key) : read()),
    refresh: read,
    missing: (upstream) =>
      new NoUpstreamKeyError(
        upstream,
        `No upstream key is stored for ${account}, so the gateway forwards nothing${upstream === "default" ? "" : ` to the upstream ${upstream}`}. Store one with \`${options.login}\`${
          options.envAlternative ? ", or set GATEWAY_API_KEY and restart the gateway" : ""
        }.`,
      ),
  };
}
