/**
 * What the upstream layer needs of an abort signal. An `AbortSignal` has it (timeouts, `AbortSignal.any`), and so
 * has an exchange's `AbortSwitch`, which costs no EventTarget per request.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** Waits `ms` (between retries); rejects with the signal's reason the moment it is aborted. */
export function pause(ms: number, signal: AbortLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort);
  });
}
