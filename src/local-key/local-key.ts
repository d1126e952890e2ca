import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";

/** The file, inside the config directory, that holds the generated local key. */
export const LOCAL_KEY_FILE = "local-key";

/** `gw-` + 32 random bytes in base64url without padding. */
export function generateLocalKey(): string {
  return `gw-${randomBytes(32).toString("base64url")}`;
}

function readKeyFile(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`Cannot read the local key file ${file}: ${(error as Error).message}`, {
      hint: "Check its permissions, or set GATEWAY_LOCAL_KEY.",
    });
  }
}

/**
 * The key local tools present: `GATEWAY_LOCAL_KEY` when set, else the `local-key` file, generated with mode 0600
 * on first use. Creation uses `wx` so two processes starting at once agree on one key.
 */
export function loadLocalKey(configDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = join(configDir, LOCAL_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing) return existing;
  try {
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${generateLocalKey()}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new CliError(`Cannot create the local key file ${file}: ${(error as Error).message}`, {
        hint: "Make the config directory writable (or set GATEWAY_CONFIG_DIR), or set GATEWAY_LOCAL_KEY.",
      });
    }
  }
  const created = readKeyFile(file);
  if (!created) throw new CliError(`The local key file ${file} is empty.`, { hint: "Delete it to generate a new key." });
  return created;
}
