import { KeychainError } from "../errors/index.js";

/** The one message for "no usable keychain", with both ways out (SPEC section 8). */
export function keychainUnavailable(reason: string, cause?: unknown): KeychainError {
  return new KeychainError(`The OS keychain is not available: ${reason}.`, {
    hint:
      "Either start a Secret Service (on Linux, e.g. gnome-keyring: see \"Headless Linux\" in the README), " +
      "or set GATEWAY_API_KEY in the environment to the upstream key.",
    cause,
  });
}
