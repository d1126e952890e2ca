import { toMicros } from "../pricing/micros.js";
import type { Pricer } from "../pricing/pricer.js";
import type { RequestRecord } from "../request-log/record.js";
import { PERIODS, spanOf, type Period, type Span } from "./periods.js";

/** What was spent in one period, in millionths of a dollar: in all, and per upstream. */
class PeriodSpend {
  readonly span: Span;
  all = 0;
  readonly byUpstream = new Map<string, number>();
  /** Requests that reported tokens for a model without a known price: counted as 0 (SPEC 11), and said. */
  unpriced = 0;
  readonly unpricedByUpstream = new Map<string, number>();

  constructor(span: Span) {
    this.span = span;
  }
}

/** Where a session's last request went (the status line's route), and what the session spent. */
export interface SessionSpend {
  spentUsd: number;
  requests: number;
  unpriced: number;
  last: { time: string; upstream: string | undefined; rule: string | undefined; model: string | undefined; target: string | undefined; status: number };
}

/** Sessions remembered at most: the status line asks about the one it runs in, which sent a request lately. */
const MAX_SESSIONS = 1_000;

/**
 * The estimated spend of the recorded requests since the start of the local day and month, in all and per upstream,
 * and per Claude Code session (SPEC 11, Budgets and Status line): kept as running totals, so that a budget check or a
 * status line costs a few lookups, never a read of the log. Fed every record as it is written (each priced once); a
 * record of an earlier period is left out, and a new period starts from nothing.
 */
export class SpendLedger {
  readonly #price: Pricer;
  readonly #now: () => number;
  readonly #periods = new Map<Period, PeriodSpend>();
  readonly #sessions = new Map<string, SessionSpend>();

  constructor(price: Pricer, now: () => number = Date.now) {
    this.#price = price;
    this.#now = now;
  }

  /** The running totals of `period`, a fresh one when the period has turned since they were last asked. */
  #current(period: Period, now = this.#now()): PeriodSpend {
    let spend = this.#periods.get(period);
    if (!spend || now >= spend.span.end) {
      spend = new PeriodSpend(spanOf(period, now));
      this.#periods.set(period, spend);
    }
    return spend;
  }

  /**
   * Adds one record: its estimated cost to the periods it falls in and to its session. A request through the user's
   * own login (`ownLogin`) counts toward its upstream's spend only: never the overall spend, nor its session's
   * (SPEC 11, Budgets).
   */
  add(record: RequestRecord): void {
    const cost = this.#price(record);
    if (cost === undefined && record.session === undefined) return;
    const time = Date.parse(record.time);
    const micros = toMicros(cost ?? 0);
    const own = record.ownLogin === true;
    for (const period of PERIODS) {
      const spend = this.#current(period, Math.max(time, this.#now()));
      if (time < spend.span.start || time >= spend.span.end) continue;
      if (!own) spend.all += micros;
      if (cost === null && !own) spend.unpriced++;
      if (record.upstream === undefined) continue;
      spend.byUpstream.set(record.upstream, (spend.byUpstream.get(record.upstream) ?? 0) + micros);
      if (cost === null) spend.unpricedByUpstream.set(record.upstream, (spend.unpricedByUpstream.get(record.upstream) ?? 0) + 1);
    }
    if (record.session !== undefined) this.#addToSession(record.session, record, own ? 0 : micros, cost === null && !own);
  }

  #addToSession(id: string, record: RequestRecord, micros: number, unpriced: boolean): void {
    const known = this.#sessions.get(id);
    // Re-inserted, so the map's order is the order of last use and the oldest is the first to go.
    this.#sessions.delete(id);
    const last = { time: record.time, upstream: record.upstream, rule: record.rule, model: record.model, target: record.target, status: record.status };
    this.#sessions.set(id, { spentUsd: (toMicros(known?.spentUsd ?? 0) + micros) / 1e6, requests: (known?.requests ?? 0) + 1, unpriced: (known?.unpriced ?? 0) + (unpriced ? 1 : 0), last });
    if (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
  }

  /** Millionths of a dollar spent in the current `period`: in all, or at `upstream`. */
  spentMicros(period: Period, upstream?: string): number {
    const spend = this.#current(period);
    return upstream === undefined ? spend.all : (spend.byUpstream.get(upstream) ?? 0);
  }

  /** US dollars spent in the current `period`: in all, or at `upstream`. */
  spent(period: Period, upstream?: string): number {
    return this.spentMicros(period, upstream) / 1e6;
  }

  /** Requests of the current `period` whose price is unknown (counted as 0): in all, or at `upstream`. */
  unpriced(period: Period, upstream?: string): number {
    const spend = this.#current(period);
    return upstream === undefined ? spend.unpriced : (spend.unpricedByUpstream.get(upstream) ?? 0);
  }

  /** When the current `period` ends and a new one starts from nothing. */
  resetsAt(period: Period): number {
    return this.#current(period).span.end;
  }

  /** What one Claude Code session spent and where its last request went; undefined for a session not seen. */
  session(id: string): SessionSpend | undefined {
    return this.#sessions.get(id);
  }
}
