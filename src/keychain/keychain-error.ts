import { KeychainError } from "../errors/index.js";

/** Both ways out, for every keychain failure (SPEC section 8). */
const WAYS_OUT =
  'Either start a Secret Service (on Linux, e.g. gnome-keyring: see "Headless Linux" in the README), or set GATEWAY_API_KEY in the environment to the upstream key.';

/** The one message for "no usable keychain", with both ways out (SPEC section 8). */
export function keychainUnavailable(reason: string, cause?: unknown, hint = WAYS_OUT): KeychainError {
  return new KeychainError(`The OS keychain is not available: ${reason}.`, { hint, cause });
}

/**
 * A failed keychain call, saying what is actually missing where the platform's words do not. The Secret Service
 * answers "no result found" when it has no default collection to store into: gnome-keyring started without a
 * password on its standard input creates none (its "login" collection is made from that password).
 */
export function keychainCallFailed(what: string, cause: unknown): KeychainError {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/Secret Service: no result found/i.test(message)) {
    return keychainUnavailable(
      `${what} failed: the Secret Service has no unlocked default collection to keep keys in (gnome-keyring makes one only when it is started with a password on its standard input)`,
      cause,
      'Restart it with a password: printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --replace --unlock --components=secrets (see "Headless Linux" in the README), or set GATEWAY_API_KEY in the environment to the upstream key.',
    );
  }
  return keychainUnavailable(`${what} failed (${message})`, cause);
}
