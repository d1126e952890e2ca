import { hash, timingSafeEqual } from "node:crypto";

// The one-shot `hash` skips the Hash object `createHash` builds per call.
const digest = (value: string): Buffer => hash("sha256", value, "buffer");

/**
 * Constant-time comparison of the presented local key with the expected one. Hashing first gives equal-length
 * inputs, so neither the content nor the length of the key leaks through timing.
 */
export function createKeyCheck(expected: string): (presented: string | undefined) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expectedDigest);
}
