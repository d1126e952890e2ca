import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { loadSecretFile, readSecretFile } from "./secret-file.js";

/** The file, inside the config directory, that holds the generated local key. */
export const LOCAL_KEY_FILE = "local-key";

/** `gw-` + 32 random bytes in base64url without padding. */
export function generateLocalKey(): string {
  return `gw-${randomBytes(32).toString("base64url")}`;
}

/** The key local tools present: `GATEWAY_LOCAL_KEY` when set, else the `local-key` file, generated on first use. */
export function loadLocalKey(configDir: string, fromEnv: string | undefined): string {
  return fromEnv || loadSecretFile(configDir, LOCAL_KEY_FILE, generateLocalKey);
}

/** The stored local key when there is a usable one, else undefined: for redaction, never creating or refusing. */
export function peekLocalKey(configDir: string, fromEnv: string | undefined): string | undefined {
  if (fromEnv) return fromEnv;
  try {
    return readSecretFile(join(configDir, LOCAL_KEY_FILE));
  } catch {
    return undefined;
  }
}
