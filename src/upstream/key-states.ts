import type { KeySource } from "./key-source.js";
import type { UpstreamSet } from "./upstream-set.js";

/** What a running gateway says of one upstream's key (never the key, nor anything made from it). */
export interface UpstreamKeyState {
  name: string;
  key: {
    /** Where it comes from: the OS keychain, a variable of the gateway's environment, or none is sent. */
    source: KeySource["kind"];
    /** Whether the gateway has one now, as its next request to that upstream would find it. */
    present: boolean;
    /** Where it comes from, in words (`stored in the OS keychain for https://...`, `from $TEAM_KEY (set)`). */
    describe: string;
  };
}

/**
 * Every upstream's key as the gateway itself finds it (issue 37, item 17): `gateway status` asks the running gateway
 * (`/ui/api/upstreams`, behind the local key) rather than reading a keychain or an environment that may not be the
 * gateway's.
 */
export function keyStates(upstreams: UpstreamSet): Promise<UpstreamKeyState[]> {
  return Promise.all(
    upstreams.all.map(async ({ name, keySource }) => ({
      name,
      key: { source: keySource.kind, present: keySource.kind !== "none" && (await keySource.get().catch(() => undefined)) !== undefined, describe: keySource.describe },
    })),
  );
}
