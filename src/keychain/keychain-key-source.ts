import type { KeySource } from "../upstream/key-source.js";
import type { KeyStore } from "./key-store.js";

/** How long a key read from the keychain is trusted before it is read again (keys rotate). */
export const KEY_TTL_MS = 5_000;

/**
 * The upstream key from the keychain, re-read at most every few seconds and at once after a 401, so that a new
 * `gateway login` takes effect in a running gateway without a restart. Concurrent reads share one call.
 */
export function keychainKeySource(store: KeyStore, account: string, initial?: string): KeySource {
  let key = initial;
  let readAt = initial === undefined ? 0 : Date.now();
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
    origin: "keychain",
    get: () => (Date.now() - readAt < KEY_TTL_MS ? Promise.resolve(key) : read()),
    refresh: read,
  };
}
