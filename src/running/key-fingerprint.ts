import { createHash } from "node:crypto";

/**
 * A short, one-way fingerprint of a local key (16 hex digits of a SHA-256 under a fixed label), so that `/health`
 * can tell a command whether the gateway on a port is its user's (issue 26, item 4) without saying anything that
 * helps to find the key: a generated key has 256 random bits.
 */
export function keyFingerprint(localKey: string): string {
  return createHash("sha256").update("gateway local-key fingerprint\0").update(localKey).digest("hex").slice(0, 16);
}
