import type { PricedRecord, RequestDetail, TeamBudgetOf } from "../../src/dashboard/dashboard-routes.js";
import type { BudgetState } from "../../src/budgets/budgets.js";
import type { UsageSummary } from "../../src/stats/summarize.js";

/** What `/ui/api/summary` answers. */
export interface Summary {
  version: string;
  upstream: string;
  startedAt: string;
  capture: { mode: string; requests: number; bytes: number };
  records: PricedRecord[];
  stats: UsageSummary;
  /** Each configured budget's use (SPEC 11); empty without budgets. */
  budgets: BudgetState[];
  /** Each team upstream's budget as its team gateway last told it (SPEC 12); absent from gateways before it. */
  teams?: TeamBudgetOf[];
}

/** One line of the live feed. */
export interface LiveLine {
  type: "hello" | "record" | "dropped";
  record?: PricedRecord;
  count?: number;
}

export type { PricedRecord, RequestDetail };

/** A 401 from the gateway: the key is missing or wrong. */
export class KeyRefused extends Error {}

/** The data endpoints take the local key in a header, never in the URL. */
export function createApi(key: string) {
  const headers = { authorization: `Bearer ${key}` };
  async function get<T>(path: string): Promise<T> {
    const res = await fetch(path, { headers, cache: "no-store" });
    if (res.status === 401) throw new KeyRefused("The gateway refused this key.");
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    return (await res.json()) as T;
  }
  return {
    summary: () => get<Summary>("/ui/api/summary"),
    detail: (id: string) => get<RequestDetail>(`/ui/api/requests/${encodeURIComponent(id)}`),
    /** Calls `onLine` for each NDJSON line of the live feed until it ends or `signal` aborts. */
    async live(onLine: (line: LiveLine) => void, signal: AbortSignal): Promise<void> {
      const res = await fetch("/ui/api/live", { headers, signal, cache: "no-store" });
      if (res.status === 401) throw new KeyRefused("The gateway refused this key.");
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let pending = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const lines = (pending + value).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) if (line) onLine(JSON.parse(line) as LiveLine);
      }
    },
  };
}

export type Api = ReturnType<typeof createApi>;
