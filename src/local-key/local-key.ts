import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, mkdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { AppError, UnsafeFileError } from "../errors/index.js";
import { checkPrivateDir, openRegular, ownedByMe } from "../files/private-files.js";

/** The file, inside the config directory, that holds the generated local key. */
export const LOCAL_KEY_FILE = "local-key";

/** `gw-` + 32 random bytes in base64url without padding. */
export function generateLocalKey(): string {
  return `gw-${randomBytes(32).toString("base64url")}`;
}

/** The key in the file, tightening a file others can read when it is the user's own (SPEC section 8). */
function readKeyFile(file: string): string | undefined {
  const opened = openRegular(file, constants.O_RDONLY);
  if (!opened) return undefined;
  try {
    if ((opened.stats.mode & 0o077) !== 0) {
      if (!ownedByMe(opened.stats)) {
        throw new UnsafeFileError(`${file} can be read by other users and belongs to someone else, so gateway will not use it.`, {
          hint: `Remove it (\`rm ${file}\`) to have a new key generated, or set GATEWAY_LOCAL_KEY.`,
        });
      }
      fchmodSync(opened.fd, 0o600);
    }
    return readFileSync(opened.fd, "utf8").trim() || undefined;
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * The key local tools present: `GATEWAY_LOCAL_KEY` when set, else the `local-key` file, generated with mode 0600
 * on first use. Creation is exclusive (`O_EXCL`) so two processes starting at once agree on one key.
 */
export function loadLocalKey(configDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  checkPrivateDir(configDir);
  const file = join(configDir, LOCAL_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing) return existing;
  try {
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    const created = openRegular(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    if (created) {
      writeSync(created.fd, `${generateLocalKey()}\n`);
      closeSync(created.fd);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new AppError(`Cannot create the local key file ${file}: ${(error as Error).message}`, {
        hint: "Make the config directory writable (or set GATEWAY_CONFIG_DIR), or set GATEWAY_LOCAL_KEY.",
      });
    }
  }
  const key = readKeyFile(file);
  if (!key) throw new AppError(`The local key file ${file} is empty.`, { hint: `Delete it (\`rm ${file}\`) to generate a new key.` });
  return key;
}

/** The stored local key when there is a usable one, else undefined: for redaction, never creating or refusing. */
export function peekLocalKey(configDir: string, fromEnv: string | undefined): string | undefined {
  if (fromEnv) return fromEnv;
  try {
    return readKeyFile(join(configDir, LOCAL_KEY_FILE));
  } catch {
    return undefined;
  }
}
