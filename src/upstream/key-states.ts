import type { KeySource } from "./key-source.js";
import type { UpstreamSet } from "./upstream-set.js";

/** What a running gateway says of one key (never the key, nor anything made from it). */
export interface KeyState {
  /** Where it comes from: the OS keychain, a variable of the gateway's environment, none is sent, the client's own. */
  source: KeySource["kind"];
  /** Whether the gateway has one now, as its next request to that upstream would find it. */
  present: boolean;
  /** Where it comes from, in words (`stored in the OS keychain for https://...`, `from $TEAM_KEY (set)`). */
  describe: string;
}

/** A key of several (SPEC 11, Several keys): its name as the config writes it, and how long it still rests. */
export interface RingKeyState extends KeyState {
  name: string;
  /** Seconds until it may be used again after a 429 (or a refusal once it had worked); 0 when it is awake. */
  restingSeconds: number;
}

/** What a running gateway says of one upstream's key, or keys. */
export interface UpstreamKeyState {
  name: string;
  /** Its key; with several, the first (`keys` has each). */
  key: KeyState;
  /** Each key, in turn order, when it has several. */
  keys?: RingKeyState[];
}

async function stateOf(source: KeySource): Promise<KeyState> {
  const needed = source.kind !== "none" && source.kind !== "client";
  return { source: source.kind, present: needed && (await source.get().catch(() => undefined)) !== undefined, describe: source.describe };
}

/**
 * Every upstream's key as the gateway itself finds it (issue 37, item 17): `gateway status` asks the running gateway
 * (`/ui/api/upstreams`, behind the local key) rather than reading a keychain or an environment that may not be the
 * gateway's.
 */
export function keyStates(upstreams: UpstreamSet): Promise<UpstreamKeyState[]> {
  return Promise.all(
    upstreams.all.map(async ({ name, keys }) => {
      const states = await Promise.all(keys.sources.map(stateOf));
      if (!keys.several) return { name, key: states[0]! };
      const resting = keys.restingMs();
      return { name, key: states[0]!, keys: states.map((state, i) => ({ ...state, name: keys.sources[i]!.name, restingSeconds: Math.ceil(resting[i]! / 1000) })) };
    }),
  );
}
