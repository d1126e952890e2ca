import { NoUpstreamKeyError } from "../errors/index.js";
import type { KeySource } from "./key-source.js";
import { parseRetryAfter } from "./retry-policy.js";

/** How long a key rests when the answer that rested it named no `retry-after` (SPEC 11, Several keys). */
export const DEFAULT_REST_MS = 60_000;

/** One key of a ring: where it comes from, until when it rests, and whether it has worked since the gateway started. */
class RingKey {
  readonly source: KeySource;
  restsUntil = 0;
  answered = false;

  constructor(source: KeySource) {
    this.source = source;
  }
}

/** A key taken for one request: which one (to rest it or mark it as having worked), its value, and whether it is awake. */
export interface TakenKey {
  readonly key: RingKey;
  readonly value: string | undefined;
  /** False when every key with a value rests and this is the one whose rest ends first. */
  readonly awake: boolean;
}

/**
 * The keys of one upstream, taking turns (SPEC 11, Several keys): each request takes the next key that is not resting
 * and has a value (round robin). A key that was answered 429, or 401/403 after it once worked, rests until its
 * `retry-after` (60 s without one). When every key rests, the one whose rest ends first is taken, and SPEC 5's retries
 * apply as they do to a single key. One key (or none: `key: "none"`, `"client"`) is the ring of one, which never
 * rests: a lone key behaves exactly as before there were several.
 */
export class KeyRing {
  readonly #keys: readonly RingKey[];
  #next = 0;

  constructor(sources: readonly KeySource[]) {
    this.#keys = sources.map((source) => new RingKey(source));
  }

  /** Each key's source, in turn order. */
  get sources(): readonly KeySource[] {
    return this.#keys.map((key) => key.source);
  }

  /** Whether the keys take turns: with one, nothing rests. */
  get several(): boolean {
    return this.#keys.length > 1;
  }

  /** The first key's source: the one of a ring of one. */
  get first(): KeySource {
    return this.#keys[0]!.source;
  }

  /** The ms until each key's rest ends (0: not resting), in turn order, for `status`. */
  restingMs(now = Date.now()): number[] {
    return this.#keys.map((key) => Math.max(0, key.restsUntil - now));
  }

  /**
   * While every key rests (several keys only): the moment the first one wakes. Undefined while one is awake. SPEC 11:
   * no new request reaches an upstream whose keys all rest.
   */
  restingUntil(now = Date.now()): number | undefined {
    if (!this.several) return undefined;
    let soonest = Infinity;
    for (const key of this.#keys) {
      if (key.restsUntil <= now) return undefined;
      soonest = Math.min(soonest, key.restsUntil);
    }
    return soonest;
  }

  /**
   * The key for the next request: the next in turn that is awake and has a value; when every key with a value rests,
   * the one whose rest ends first. Undefined value: no key has one (for `none` and `client`, none is needed).
   */
  async take(now = Date.now()): Promise<TakenKey> {
    const keys = this.#keys;
    if (keys.length === 1) return { key: keys[0]!, value: await keys[0]!.source.get(), awake: true };
    let soonest: TakenKey | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(this.#next + i) % keys.length]!;
      const value = await key.source.get().catch(() => undefined);
      if (value === undefined) continue;
      if (key.restsUntil <= now) {
        this.#next = (this.#next + i + 1) % keys.length;
        return { key, value, awake: true };
      }
      if (!soonest || key.restsUntil < soonest.key.restsUntil) soonest = { key, value, awake: false };
    }
    return soonest ?? { key: keys[this.#next]!, value: undefined, awake: false };
  }

  /**
   * After an answer with `status`: a 2xx marks the key as having worked; a 429, or a 401/403 from a key that has
   * worked, rests it (several keys only). True when it was rested: the request may go again at once with the next key,
   * if one is awake.
   */
  answered(taken: TakenKey, status: number, retryAfter: string | string[] | undefined, now = Date.now()): boolean {
    if (!this.several) return false;
    const { key } = taken;
    if (status >= 200 && status < 300) {
      key.answered = true;
      return false;
    }
    if (status !== 429 && !((status === 401 || status === 403) && key.answered)) return false;
    key.restsUntil = now + (parseRetryAfter(retryAfter, now) ?? DEFAULT_REST_MS);
    return true;
  }

  /** The error for a request that found no key: the one source's own words, or every key of a ring named. */
  missing(upstream: string): NoUpstreamKeyError {
    if (!this.several) return this.first.missing(upstream);
    const names = this.#keys.map((key) => key.source.name).join(", ");
    return new NoUpstreamKeyError(
      upstream,
      `None of the keys of the upstream ${upstream} (${names}) is available, so nothing is forwarded to it. Store a labelled one with \`gateway login ${upstream} --label <label>\`, or set its variable in the gateway's environment and restart it.`,
    );
  }
}
