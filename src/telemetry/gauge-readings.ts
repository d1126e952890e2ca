import type { BudgetState } from "../budgets/budgets.js";
import type { SpendTracker } from "../budgets/spend-tracker.js";
import type { UpstreamSet } from "../upstream/upstream-set.js";

/** One key of an upstream with several, by the name the config gives it (`keychain:work`, `env:SPARE_KEY`), never its value. */
export interface KeyRest {
  upstream: string;
  key: string;
  resting: boolean;
}

/** What the gauges read when they are collected (a scrape, an export): the gateway's state at that moment. */
export interface GaugeReadings {
  inflight(): number;
  budgets(): Promise<BudgetState[]>;
  restingKeys(): KeyRest[];
}

/** The gauges' readings of one gateway: its in-flight registry, its spend tracker, its upstreams' key rings. */
export function gaugeReadings(upstreams: UpstreamSet, spend: SpendTracker, inflight: () => number): GaugeReadings {
  return {
    inflight,
    budgets: () => spend.states(),
    restingKeys() {
      const now = Date.now();
      return upstreams.all.flatMap(({ name, keys }) => {
        if (!keys.several) return [];
        const resting = keys.restingMs(now);
        return keys.sources.map((source, i) => ({ upstream: name, key: source.name, resting: resting[i]! > 0 }));
      });
    },
  };
}
