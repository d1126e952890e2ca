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
 * password on its standard input creates none (its "login" collection is made from that password). It answers
 * "unlock prompt was dismissed" when its keyring is locked and the unlock prompt could not be shown (no display) or
 * was cancelled: gnome-keyring started with a password other than the one the keyring was made with, or none, logs
 * "failed to unlock login keyring on startup" and leaves it locked (tried with gnome-keyring 42.1, issue 37 item 24).
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
  if (/unlock prompt was dismissed/i.test(message)) {
    return keychainUnavailable(
      `${what} failed: the keyring is locked, and the prompt to unlock it was dismissed (with no display, gnome-keyring cannot ask for the password: it was started with another password than the keyring's, or with none)`,
      cause,
      'Restart it with the keyring\'s own password: printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --replace --unlock --components=secrets. Forgot it? Move ~/.local/share/keyrings/login.keyring away (the keys in it are lost), restart it with a new password, and run `gateway login` again. Or set GATEWAY_API_KEY in the environment to the upstream key.',
    );
  }
  return keychainUnavailable(`${what} failed (${message})`, cause);
}
