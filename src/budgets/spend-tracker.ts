import type { GatewayConfig } from "../config/index.js";
import { ownPrices, type Pricer } from "../pricing/index.js";
import { readRecords } from "../request-log/read-log.js";
import type { RequestRecord, RequestSink } from "../request-log/record.js";
import { budgetsOf, budgetStates, spentBudget, type Budget, type BudgetState } from "./budgets.js";
import { spanOf } from "./periods.js";
import { SpendLedger } from "./spend-ledger.js";

/** What decides whether a request to an upstream costs anything: echo, and local kinds unless `prices` names the model. */
export interface Payee {
  name: string;
  isEcho: boolean;
  isLocal: boolean;
}

export interface SpendTrackerOptions {
  config: Pick<GatewayConfig, "budgets" | "upstreams" | "prices" | "stateDir">;
  /** The gateway's pricer, loaded once and shared with the dashboard. */
  pricer: () => Promise<Pricer>;
  /** The records the gateway holds in memory (the dashboard's ring): the latest ones may not be in the log file yet. */
  recent: () => readonly RequestRecord[];
}

/**
 * The running gateway's spend (SPEC 11, Budgets, Status line): a `SpendLedger` loaded from the request log once, from
 * the start of the local month, then fed each record as it is written. With budgets configured it is loaded before
 * the gateway serves (`ready`), so each request's check is a few lookups; without, on the first question (the status
 * line, the dashboard), so a gateway nobody asks costs nothing.
 */
export function createSpendTracker(options: SpendTrackerOptions) {
  const budgets: readonly Budget[] = budgetsOf(options.config);
  const ownPrice = ownPrices(options.config.prices);
  let ledger: SpendLedger | undefined;
  let loading: Promise<SpendLedger> | undefined;

  async function load(): Promise<SpendLedger> {
    const price = await options.pricer();
    const { records } = await readRecords(options.config.stateDir, { since: spanOf("monthly", Date.now()).start }).catch(() => ({ records: [] as RequestRecord[] }));
    const loaded = new SpendLedger(price);
    const seen = new Set<string>();
    for (const record of records) {
      seen.add(record.requestId);
      loaded.add(record);
    }
    // Written after the log was read, or still waiting in its queue: in memory, not yet (all) in the file. From here on,
    // in the same turn, the sink feeds the ledger itself.
    for (const record of options.recent()) if (!seen.has(record.requestId)) loaded.add(record);
    ledger = loaded;
    return loaded;
  }

  const sink: RequestSink = (record) => ledger?.add(record);
  const loaded = (): Promise<SpendLedger> => (ledger ? Promise.resolve(ledger) : (loading ??= load()));

  return {
    /** Feeds each record to the ledger once it is loaded (the records before that are read from the log and the ring). */
    sink,
    /** The configured budgets, overall first. */
    budgets,
    /** The ledger, loaded on first ask. */
    ledger: loaded,
    /**
     * The spent budget that keeps a request from `upstream` now, or undefined: always for echo and for a local server
     * whose model `prices` does not name (they cost nothing, SPEC 11), and when no budget is configured.
     */
    refusal(upstream: Payee, model: string | undefined): BudgetState | undefined {
      if (budgets.length === 0 || !ledger || upstream.isEcho || (upstream.isLocal && (model === undefined || ownPrice(model) === undefined))) return undefined;
      return spentBudget(budgets, ledger, upstream.name);
    },
    /** Each budget with its spend now. */
    async states(): Promise<BudgetState[]> {
      return budgets.length === 0 ? [] : budgetStates(budgets, await loaded());
    },
  };
}

export type SpendTracker = ReturnType<typeof createSpendTracker>;
