/**
 * Where the upstream key comes from, behind one small interface so the server, `gateway chat` and the tests do
 * not care whether it is the environment, the OS keychain, or nothing (the echo upstream needs no key).
 */
export interface KeySource {
  /** Where the key comes from, for `status` and the banner; never the key itself. */
  readonly origin: "env" | "keychain" | "none";
  /** The current key; may be cached. Undefined when none is needed or none is stored. */
  get(): Promise<string | undefined>;
  /** Re-reads the key (after an upstream 401, the user may have run `gateway login`). */
  refresh(): Promise<string | undefined>;
}

/** A fixed key, as given by `GATEWAY_API_KEY`. */
export function staticKeySource(key: string): KeySource {
  return { origin: "env", get: async () => key, refresh: async () => key };
}

/** No key at all: the echo upstream. */
export const noKeySource: KeySource = {
  origin: "none",
  get: async () => undefined,
  refresh: async () => undefined,
};
