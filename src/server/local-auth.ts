import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();

/**
 * Constant-time comparison of the presented local key with the expected one. Hashing first gives equal-length
 * inputs, so neither the content nor the length of the key leaks through timing.
 */
export function createKeyCheck(expected: string): (presented: string | undefined) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expectedDigest);
}
