/**
 * Constant-time comparison of the presented local key with the expected one. Every character of the presented key
 * is compared with the expected key's at the same place (wrapping round it), and the lengths too, with no early
 * exit: the time depends only on the presented key's length, which its sender knows. No hash per request: a
 * SHA-256 of each presented key measured 1.5% of a passthrough request's CPU.
 */
export function createKeyCheck(expected: string): (presented: string | undefined) => boolean {
  const length = expected.length;
  return (presented) => {
    if (presented === undefined || length === 0) return false;
    let difference = presented.length ^ length;
    for (let i = 0; i < presented.length; i++) difference |= presented.charCodeAt(i) ^ expected.charCodeAt(i % length);
    return difference === 0;
  };
}
