import { formatCount, formatGroupCost, formatMs } from "../../src/request-log/format.js";
import type { GroupStats, UsageSummary } from "../../src/stats/summarize.js";
import { breakable, el } from "./dom.js";

/** The figures across the top: requests, errors, tokens, estimated cost, latency. */
export function renderCards(container: HTMLElement, summary: UsageSummary): void {
  const t = summary.total;
  const cards: [string, string, string?][] = [
    ["Requests", formatCount(t.requests)],
    ["Errors", formatCount(t.errors)],
    ["Tokens in", formatCount(t.inputTokens)],
    ["Tokens out", formatCount(t.outputTokens)],
    ["Cache read", formatCount(t.cacheReadTokens)],
    ["Estimated cost", formatGroupCost(t.costUsd, t.unpricedRequests), unpricedNote(t)],
    ["Latency p50 / p95", `${formatMs(t.durationMs.p50)} / ${formatMs(t.durationMs.p95)}`],
  ];
  container.replaceChildren(
    ...cards.map(([label, value, note]) => {
      const div = el("div", undefined, "card");
      div.dataset.label = label;
      if (note) div.title = note;
      div.append(el("strong", value), el("span", label));
      return div;
    }),
  );
}

/** Why a cost is a lower bound or unknown, for its tooltip. */
function unpricedNote(g: GroupStats): string | undefined {
  if (g.unpricedRequests === 0) return undefined;
  const n = `${formatCount(g.unpricedRequests)} request${g.unpricedRequests === 1 ? "" : "s"}`;
  return `${n} for a model without a known price (add it under "prices" in config.json); not counted in the figure.`;
}

const HEAD = [["Requests", true], ["Errors", true], ["Tokens in", true], ["Tokens out", true], ["Cost", true], ["P50", true], ["P95", true]] as const;

/**
 * A totals table (per model, client or upstream). Each row is a button-like row: choosing it sets the table's filter
 * to its name through `choose`, choosing the row in effect again clears it; `active` is the name filtered on now.
 */
export function renderGroups(table: HTMLTableElement, title: string, groups: readonly GroupStats[], active: string, choose: (name: string) => void): void {
  const head = el("tr");
  head.append(el("th", title));
  for (const [label] of HEAD) head.append(el("th", label, "num"));
  const rows = groups.map((g) => {
    const tr = el("tr", undefined, g.name === active ? "pick active" : "pick");
    tr.tabIndex = 0;
    tr.title = g.name === active ? "Show every request again" : `Show only the requests of ${g.name}`;
    tr.setAttribute("aria-pressed", String(g.name === active));
    const cost = el("td", formatGroupCost(g.costUsd, g.unpricedRequests), "num");
    const note = unpricedNote(g);
    if (note) cost.title = note;
    const name = el("td", undefined, "name");
    name.append(...breakable(g.name));
    tr.append(
      name,
      el("td", formatCount(g.requests), "num"),
      el("td", formatCount(g.errors), "num"),
      el("td", formatCount(g.inputTokens), "num"),
      el("td", formatCount(g.outputTokens), "num"),
      cost,
      el("td", formatMs(g.durationMs.p50), "num"),
      el("td", formatMs(g.durationMs.p95), "num"),
    );
    const pick = () => choose(g.name === active ? "" : g.name);
    tr.addEventListener("click", pick);
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pick();
      }
    });
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

/** The three totals tables' data, by the filter each one drives. */
export const groupsOf = (s: UsageSummary) => ({ model: s.models, client: s.clients, upstream: s.upstreams }) as const;
