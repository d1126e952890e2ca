/** A budget's period (SPEC 11, Budgets): the local day or the local month. */
export type Period = "daily" | "monthly";

export const PERIODS: readonly Period[] = ["daily", "monthly"];

/** The span of a period: from its start (inclusive) to the next one's (exclusive), ms since the epoch. */
export interface Span {
  start: number;
  end: number;
}

/**
 * The local day or month `now` is in. Built from calendar fields, not by adding 24 h: a day with a daylight-saving
 * change is 23 or 25 hours long, and its end is still the next local midnight.
 */
export function spanOf(period: Period, now: number): Span {
  const d = new Date(now);
  if (period === "daily") return { start: new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime(), end: new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() };
  return { start: new Date(d.getFullYear(), d.getMonth(), 1).getTime(), end: new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime() };
}
