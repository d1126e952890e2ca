import { formatCount, formatGroupCost, formatMs, formatUsd } from "../../src/request-log/format.js";
import type { GroupStats, UsageSummary } from "../../src/stats/summarize.js";
import { breakable, el } from "./dom.js";

/** A figure some of whose requests the gateway estimated (their reply reported no usage): `~1,234`. */
const estimate = (g: GroupStats, figure: string): string => (g.estimatedRequests > 0 ? `~${figure}` : figure);

/** Why a figure is an estimate, for its tooltip. */
function estimatedNote(g: GroupStats): string | undefined {
  if (g.estimatedRequests === 0) return undefined;
  return `${formatCount(g.estimatedRequests)} request${g.estimatedRequests === 1 ? "" : "s"} reported no usage (a chat stream without stream_options.include_usage): the gateway estimated their tokens.`;
}

/** What the own login would cost at API prices: apart from the cost, never in it nor in the overall budget. */
const ownLogin = (g: GroupStats): string => (g.ownLoginCostUsd > 0 ? formatUsd(g.ownLoginCostUsd) : "-");

/** The figures across the top: requests, errors, tokens, estimated cost, own login's cost, latency. */
export function renderCards(container: HTMLElement, summary: UsageSummary): void {
  const t = summary.total;
  const cards: [string, string, string?][] = [
    ["Requests", formatCount(t.requests)],
    ["Errors", formatCount(t.errors)],
    ["Tokens in", estimate(t, formatCount(t.inputTokens)), estimatedNote(t)],
    ["Tokens out", estimate(t, formatCount(t.outputTokens)), estimatedNote(t)],
    ["Cache read", formatCount(t.cacheReadTokens)],
    ["Estimated cost", estimate(t, formatGroupCost(t.costUsd, t.unpricedRequests)), [unpricedNote(t), estimatedNote(t)].filter(Boolean).join(" ") || undefined],
    ...(t.ownLoginCostUsd > 0 ? [["Own login, at API prices", ownLogin(t), "Requests through your own login (a key: \"client\" upstream), priced at API prices: not in the estimated cost, nor in the overall budget."] as [string, string, string]] : []),
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

/**
 * The figures of a totals row. A phone-width screen keeps the `phone` ones (how many, what they cost, how fast);
 * the stylesheet hides the others there (`.wide`), as the request table does.
 */
const FIGURES: readonly { title: string; phone?: boolean; value: (g: GroupStats) => string; note?: (g: GroupStats) => string | undefined }[] = [
  { title: "Requests", phone: true, value: (g) => formatCount(g.requests) },
  { title: "Errors", value: (g) => formatCount(g.errors) },
  { title: "Tokens in", value: (g) => estimate(g, formatCount(g.inputTokens)), note: estimatedNote },
  { title: "Tokens out", value: (g) => estimate(g, formatCount(g.outputTokens)), note: estimatedNote },
  { title: "Cost", phone: true, value: (g) => estimate(g, formatGroupCost(g.costUsd, g.unpricedRequests)), note: unpricedNote },
  { title: "Own login", value: ownLogin },
  { title: "P50", phone: true, value: (g) => formatMs(g.durationMs.p50) },
  { title: "P95", value: (g) => formatMs(g.durationMs.p95) },
];

const figureClass = (column: (typeof FIGURES)[number]): string => (column.phone ? "num" : "num wide");

/**
 * A totals table (per model, client or upstream). Each row is a button-like row: choosing it sets the table's filter
 * to its name through `choose`, choosing the row in effect again clears it; `active` is the name filtered on now.
 */
export function renderGroups(table: HTMLTableElement, title: string, groups: readonly GroupStats[], active: string, choose: (name: string) => void): void {
  // The own login's column only where some request went through one: most users have none.
  const figures = groups.some((g) => g.ownLoginCostUsd > 0) ? FIGURES : FIGURES.filter((column) => column.value !== ownLogin);
  const head = el("tr");
  head.append(el("th", title));
  for (const column of figures) head.append(el("th", column.title, figureClass(column)));
  const rows = groups.map((g) => {
    const tr = el("tr", undefined, g.name === active ? "pick active" : "pick");
    tr.tabIndex = 0;
    tr.title = g.name === active ? "Show every request again" : `Show only the requests of ${g.name}`;
    tr.setAttribute("aria-pressed", String(g.name === active));
    const name = el("td", undefined, "name");
    name.append(...breakable(g.name));
    tr.append(name);
    for (const column of figures) {
      const td = el("td", column.value(g), figureClass(column));
      const note = column.note?.(g);
      if (note) td.title = note;
      tr.append(td);
    }
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
