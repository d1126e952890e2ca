import { KeyRefused, createApi, type Api, type PricedRecord, type Summary } from "./api.js";
import { renderBudgets } from "./budgets.js";
import { series, timeChart } from "./charts.js";
import { renderDetail } from "./detail.js";
import { matches, headerRow, requestRow, type Filters } from "./request-table.js";
import { groupsOf, renderCards, renderGroups } from "./totals.js";

const KEY_STORAGE = "gateway-local-key";
const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

/** The key comes in the fragment (`gateway ui`), lives in this tab's session storage, and leaves the address bar. */
function takeKey(): string | undefined {
  const fromFragment = new URLSearchParams(location.hash.slice(1)).get("key");
  if (fromFragment) {
    sessionStorage.setItem(KEY_STORAGE, fromFragment);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
}

function askForKey(message = ""): void {
  $("app").hidden = true;
  $("login").hidden = false;
  $("key-error").textContent = message;
  $<HTMLInputElement>("key-input").focus();
}

/** The live state of the page: records newest last, the server's totals. */
let records: PricedRecord[] = [];
let summary: Summary | undefined;

/** The filters by the select that holds each one. */
const FILTER_SELECTS = { model: "f-model", client: "f-client", upstream: "f-upstream", family: "f-family", status: "f-status" } as const;

function filters(): Filters {
  const value = (id: string) => $<HTMLSelectElement>(id).value;
  return { model: value("f-model"), client: value("f-client"), upstream: value("f-upstream"), family: value("f-family"), status: value("f-status") };
}

function renderTable(): void {
  const f = filters();
  const body = $<HTMLTableElement>("requests").tBodies[0]!;
  const matching = records.filter((r) => matches(r, f));
  body.replaceChildren(...matching.slice(-500).reverse().map(requestRow));
  $("empty").hidden = records.length > 0;
  const filtered = $("filtered");
  filtered.hidden = records.length === 0 || matching.length === records.length;
  filtered.textContent = `${matching.length} of ${records.length} requests match the filters.`;
}

function fillFilter(id: string, values: Iterable<string>): void {
  const select = $<HTMLSelectElement>(id);
  const known = new Set([...select.options].map((o) => o.value));
  for (const value of values) {
    if (known.has(value)) continue;
    select.append(new Option(value, value));
    known.add(value);
  }
}

/** The table and the totals' marked rows after a filter changed. */
function refilter(): void {
  renderTable();
  if (summary) renderTotals(summary);
}

/** Sets one filter (a totals row was chosen) and shows the table it gives. */
function setFilter(name: keyof typeof FILTER_SELECTS, value: string): void {
  const id = FILTER_SELECTS[name];
  fillFilter(id, [value]);
  $<HTMLSelectElement>(id).value = value;
  refilter();
}

function renderTotals(s: Summary): void {
  renderCards($("cards"), s.stats);
  renderBudgets($("budgets"), s.budgets, s.teams ?? []);
  const f = filters();
  const titles = { model: "Model", client: "Client", upstream: "Upstream" } as const;
  for (const [name, groups] of Object.entries(groupsOf(s.stats)) as [keyof typeof titles, typeof s.stats.models][]) {
    renderGroups($<HTMLTableElement>(`by-${name}`), titles[name], groups, f[name], (value) => setFilter(name, value));
    fillFilter(FILTER_SELECTS[name], groups.map((g) => g.name));
  }
}

function renderMeta(): void {
  if (!summary) return;
  const up = Math.round((Date.now() - Date.parse(summary.startedAt)) / 60_000);
  const capture = summary.capture.mode === "off" ? "capture off" : `capture ${summary.capture.mode} (${summary.capture.requests} kept)`;
  $("meta").textContent = `${summary.version} · upstream ${summary.upstream} · up ${up < 60 ? `${up} min` : `${Math.floor(up / 60)} h ${up % 60} min`} · ${capture}`;
}

const charts = {
  requests: timeChart($("chart-requests"), ["requests"], ["#4c8bf5"], "bars"),
  tokens: timeChart($("chart-tokens"), ["in", "out"], ["#4c8bf5", "#e8710a"], "line"),
  latency: timeChart($("chart-latency"), ["p50", "p95"], ["#12a150", "#d93025"], "points"),
};

function renderCharts(): void {
  const choice = $<HTMLSelectElement>("window").value;
  const data = series(records, choice === "auto" ? "auto" : Number(choice));
  charts.requests.update(data.requests, data.step, data.inWindow);
  charts.tokens.update(data.tokens, data.step, data.inWindow);
  charts.latency.update(data.latency, data.step, data.inWindow);
}

/** Coalesces bursts: totals are refetched (computed by the gateway, as `gateway stats` does) at most once a second. */
function throttle(run: () => void, ms: number): () => void {
  let timer: number | undefined;
  return () => {
    timer ??= window.setTimeout(() => {
      timer = undefined;
      run();
    }, ms);
  };
}

async function openDetail(api: Api, id: string): Promise<void> {
  const panel = $("detail");
  $("detail-title").textContent = `Request ${id}`;
  $("detail-body").replaceChildren(renderDetail(await api.detail(id)));
  panel.hidden = false;
  panel.focus();
}

async function run(api: Api): Promise<void> {
  summary = await api.summary();
  $("login").hidden = true;
  $("app").hidden = false;
  records = summary.records;
  $<HTMLTableElement>("requests").tHead!.replaceChildren(headerRow());
  renderMeta();
  renderTotals(summary);
  renderTable();
  renderCharts();

  const refreshTotals = throttle(async () => {
    summary = await api.summary();
    renderMeta();
    renderTotals(summary);
  }, 1_000);
  const redraw = throttle(() => {
    renderTable();
    renderCharts();
  }, 100);

  for (const id of Object.values(FILTER_SELECTS)) $(id).addEventListener("change", refilter);
  $("window").addEventListener("change", renderCharts);
  $<HTMLTableElement>("requests").tBodies[0]!.addEventListener("click", (event) => {
    const id = (event.target as HTMLElement).closest("tr")?.dataset.id;
    if (id) void openDetail(api, id);
  });
  $<HTMLTableElement>("requests").tBodies[0]!.addEventListener("keydown", (event) => {
    const id = (event.target as HTMLElement).closest("tr")?.dataset.id;
    if (id && event.key === "Enter") void openDetail(api, id);
  });
  setInterval(renderMeta, 30_000);
  // An automatic window grows with the gateway's age even when no request comes.
  setInterval(renderCharts, 5_000);

  const live = $("live");
  const controller = new AbortController();
  window.addEventListener("pagehide", () => controller.abort());
  for (;;) {
    live.textContent = "● live";
    live.className = "live on";
    try {
      await api.live((line) => {
        if (line.type === "record" && line.record) {
          records.push(line.record);
          if (records.length > 10_000) records.splice(0, records.length - 10_000);
          redraw();
          refreshTotals();
        } else if (line.type === "dropped") {
          live.textContent = `● live (${line.count} missed while this tab was busy)`;
          refreshTotals();
        }
      }, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof KeyRefused) return askForKey(error.message);
    }
    live.textContent = "○ reconnecting…";
    live.className = "live off";
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

async function start(key: string): Promise<void> {
  try {
    await run(createApi(key));
  } catch (error) {
    if (error instanceof KeyRefused) {
      sessionStorage.removeItem(KEY_STORAGE);
      askForKey(`${error.message} Check it with \`gateway env\`.`);
    } else throw error;
  }
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = $<HTMLInputElement>("key-input").value.trim();
  sessionStorage.setItem(KEY_STORAGE, key);
  void start(key);
});
$("detail-close").addEventListener("click", () => ($("detail").hidden = true));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") $("detail").hidden = true;
});

const key = takeKey();
if (key) void start(key);
else askForKey();
