import type { KeyStore } from "../../src/keychain/index.js";

/** A key store in memory, for tests of what reads keys (the OS keychain itself is tested against gnome-keyring). */
export function memoryKeyStore(initial: Record<string, string> = {}): KeyStore & { entries: Map<string, string> } {
  const entries = new Map(Object.entries(initial));
  return {
    entries,
    get: async (account) => entries.get(account),
    set: async (account, key) => void entries.set(account, key),
    delete: async (account) => entries.delete(account),
  };
}
