import type { RequestRecord } from "../request-log/record.js";
import type { Upstream } from "../upstream/upstream.js";
import { storeCatalog } from "./catalog-store.js";
import { readTeamBudget } from "./read-catalog.js";

/** A team budget is read again after a request reached its team gateway, at most this often (SPEC 12). */
export const BUDGET_REFRESH_MS = 60_000;

/**
 * A request sink that reads a team upstream's `/key/info` again after a request reached it, at most once a minute
 * per upstream, in the background (a request never waits for it), and keeps the new budget with its catalog.
 */
export function teamBudgetRefresh(upstreams: readonly Upstream[], stateDir: string, now: () => number = Date.now): (record: RequestRecord) => void {
  const lastRead = new Map<string, number>();
  return (record) => {
    const upstream = upstreams.find((candidate) => candidate.name === record.upstream && candidate.config.team);
    const catalog = upstream?.catalog();
    if (!upstream || !catalog || record.status === 0) return;
    const last = lastRead.get(upstream.name) ?? Date.parse(catalog.budget?.readAt ?? catalog.readAt);
    if (now() - last < BUDGET_REFRESH_MS) return;
    lastRead.set(upstream.name, now());
    readTeamBudget(upstream).then(
      (budget) => {
        if (!budget) return;
        const next = { ...upstream.catalog()!, budget };
        upstream.useCatalog(next);
        storeCatalog(stateDir, next);
      },
      // A team gateway that does not answer now keeps the budget it told before; the next request asks again.
      () => lastRead.delete(upstream.name),
    );
  };
}
