import { closeSync, constants, fchmodSync, mkdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { GatewayError, UnsafeFileError } from "../errors/index.js";
import { checkPrivateDir, openRegular, ownedByMe } from "../files/private-files.js";

/** The secret in a file, tightening a file others can read when it is the user's own (SPEC section 8). */
export function readSecretFile(file: string): string | undefined {
  const opened = openRegular(file, constants.O_RDONLY);
  if (!opened) return undefined;
  try {
    if ((opened.stats.mode & 0o077) !== 0) {
      if (!ownedByMe(opened.stats)) {
        throw new UnsafeFileError(`${file} can be read by other users and belongs to someone else, so gateway will not use it.`, {
          hint: `Remove it (\`rm ${file}\`) to have a new one generated.`,
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
 * A secret of the gateway's own in the config directory (the local key, the reasoning seal's key): read when the file
 * exists, else generated with mode 0600. Creation is exclusive (`O_EXCL`) so two processes starting at once agree
 * on one secret; the file is opened without following links and must be a regular file.
 */
export function loadSecretFile(configDir: string, name: string, generate: () => string): string {
  checkPrivateDir(configDir);
  const file = join(configDir, name);
  const existing = readSecretFile(file);
  if (existing) return existing;
  try {
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    const created = openRegular(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    if (created) {
      writeSync(created.fd, `${generate()}\n`);
      closeSync(created.fd);
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new GatewayError(`Cannot create ${file}: ${(error as Error).message}`, {
        hint: "Make the config directory writable, or point GATEWAY_CONFIG_DIR at one that is.",
      });
    }
  }
  const secret = readSecretFile(file);
  if (!secret) throw new GatewayError(`${file} is empty.`, { hint: `Delete it (\`rm ${file}\`) to generate a new one.` });
  return secret;
}
