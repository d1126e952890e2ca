import { existsSync } from "node:fs";
import type { AsyncEntry, EntryOptions } from "@napi-rs/keyring";
import { KeychainError } from "../errors/index.js";
import { keychainCallFailed, keychainUnavailable } from "./keychain-error.js";

/** The keychain service every entry is stored under; the account is the upstream origin. */
export const KEYCHAIN_SERVICE = "gateway";

/** The only interface to the secret store. */
export interface KeyStore {
  get(account: string): Promise<string | undefined>;
  set(account: string, key: string): Promise<void>;
  /** True when an entry was removed. */
  delete(account: string): Promise<boolean>;
}

export interface OsKeyStoreOptions {
  /** Bound on every keychain call: a locked or absent store must never hang a command. @default 5_000 */
  timeoutMs?: number;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * Pinned to the Secret Service on Linux: the default would fall back to the kernel keyring, which forgets
 * everything at reboot without telling anyone.
 */
const ENTRY_OPTIONS: EntryOptions = { linux: { store: "secret-service" } };

/** On Linux the Secret Service lives on the D-Bus session bus; without one, fail at once instead of probing. */
function missingSessionBus(env: NodeJS.ProcessEnv): boolean {
  if (process.platform !== "linux") return false;
  if (env.DBUS_SESSION_BUS_ADDRESS) return false;
  const uid = process.getuid?.();
  return uid === undefined || !existsSync(`/run/user/${uid}/bus`);
}

async function bounded<T>(what: string, timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(keychainUnavailable(`${what} did not answer within ${timeoutMs / 1000} s (is the keyring locked?)`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } catch (error) {
    if (error instanceof KeychainError) throw error;
    throw keychainCallFailed(what, error);
  } finally {
    clearTimeout(timer);
  }
}

/** The OS keychain (macOS Keychain, Windows Credential Manager, Linux Secret Service) via `@napi-rs/keyring`. */
export function createOsKeyStore(options: OsKeyStoreOptions = {}): KeyStore {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const env = options.env ?? process.env;
  const entry = async (account: string): Promise<AsyncEntry> => {
    if (missingSessionBus(env)) {
      throw keychainUnavailable(
        "no D-Bus session bus, so no Secret Service can be reached (DBUS_SESSION_BUS_ADDRESS is unset)",
        undefined,
        'Each shell needs the DBUS_SESSION_BUS_ADDRESS of the bus gnome-keyring runs on: in a new shell, load it first (". ~/.gateway-dbus-session" after "Headless Linux" in the README), or set GATEWAY_API_KEY in the environment to the upstream key.',
      );
    }
    // The native binding loads on the first keychain call, not with every command (about 30 ms); a platform
    // without a prebuilt binding then fails here, as "keychain unavailable", instead of at start-up.
    const { AsyncEntry } = await import("@napi-rs/keyring");
    return new AsyncEntry(KEYCHAIN_SERVICE, account, ENTRY_OPTIONS);
  };
  return {
    get: (account) =>
      bounded("reading the keychain", timeoutMs, async (signal) => (await (await entry(account)).getPassword(signal)) ?? undefined),
    set: (account, key) => bounded("writing to the keychain", timeoutMs, async (signal) => (await entry(account)).setPassword(key, signal)),
    delete: (account) => bounded("deleting from the keychain", timeoutMs, async (signal) => (await entry(account)).deleteCredential(signal)),
  };
}
