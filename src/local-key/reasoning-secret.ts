import { randomBytes } from "node:crypto";
import { createReasoningSeal } from "../translate/reasoning-seal.js";
import type { ReasoningSeal } from "../translate/types.js";
import { loadSecretFile } from "./secret-file.js";

/** The file, inside the config directory, that holds the key of the reasoning seal. */
export const REASONING_SECRET_FILE = "reasoning-secret";

/**
 * The seal that signs the reasoning the gateway hands to clients (SPEC 10 rule 4), under a per-install secret
 * generated on first use: thinking blocks it signed stay recognisable across restarts, and nobody else can make one.
 */
export function loadReasoningSeal(configDir: string): ReasoningSeal {
  const secret = loadSecretFile(configDir, REASONING_SECRET_FILE, () => randomBytes(32).toString("base64url"));
  return createReasoningSeal(Buffer.from(secret, "base64url"));
}
