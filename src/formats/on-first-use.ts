import type { OnFirstUse } from "./format-types.js";

/**
 * A part of a format that `load` imports on its first use and keeps (issue 52): a gateway that only passes requests
 * through never loads a translator, and the second request that needs one pays nothing for it. A load that failed
 * (the package's files replaced under a running gateway by an upgrade) is tried again by the next request that needs
 * it, rather than kept as that request's failure for the life of the process.
 */
export function onFirstUse<T>(load: () => Promise<T>): OnFirstUse<T> {
  let loading: Promise<T> | undefined;
  const part: { loaded: T | undefined; load(): Promise<T> } = {
    loaded: undefined,
    load: () =>
      (loading ??= load().then(
        (value) => (part.loaded = value),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      )),
  };
  return part;
}
