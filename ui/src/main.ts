import { clientName } from "../../src/request-log/client-name.js";
import type { RequestRecord } from "../../src/request-log/record.js";
import { failureCause, formatMs, modelLabel } from "../../src/request-log/request-line.js";
import type { GroupStats } from "../../src/request-log/summarize.js";
import { KeyRefused, createApi, type Api, type Summary } from "./api.js";
import { series, timeChart } from "./charts.js";
import { renderDetail } from "./detail.js";
import { formatTime } from "./format-time.js";

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

const number = (n: number): string => n.toLocaleString("en-US");
const text = (value: unknown): string => (value === undefined || value === null || value === "" ? "-" : String(value));

function cell(content: string, className?: string): HTMLTableCellElement {
  const td = document.createElement("td");
  td.textContent = content;
  if (className) td.className = className;
  return td;
}

/** The live state of the page: records newest last, the server's totals, the chosen filters. */
let records: RequestRecord[] = [];
let summary: Summary | undefined;

function matches(r: RequestRecord): boolean {
  const model = $<HTMLSelectElement>("f-model").value;
  const client = $<HTMLSelectElement>("f-client").value;
  const family = $<HTMLSelectElement>("f-family").value;
  const status = $<HTMLSelectElement>("f-status").value;
  if (model && r.model !== model) return false;
  if (client && clientName(r.userAgent) !== client) return false;
  if (family && r.family !== family) return false;
  const failed = r.status >= 400 || r.outcome !== "complete";
  return !(status === "ok" && failed) && !(status === "error" && !failed);
}

function requestRow(r: RequestRecord): HTMLTableRowElement {
  const tr = document.createElement("tr");
  tr.tabIndex = 0;
  tr.dataset.id = r.requestId;
  const failed = r.status >= 400 || r.outcome !== "complete";
  if (failed) tr.className = "failed";
  const cache = r.cacheReadTokens || r.cacheWriteTokens ? `${r.cacheReadTokens ?? 0}/${r.cacheWriteTokens ?? 0}` : "-";
  tr.append(
    cell(formatTime(r.time)),
    cell(clientName(r.userAgent)),
    cell(text(r.family)),
    cell(r.method),
    cell(r.path, "path"),
    cell(modelLabel(r)),
    cell(String(r.status), `num status s${String(r.status)[0]}`),
    cell(formatMs(r.durationMs), "num"),
    cell(formatMs(r.ttfbMs), "num"),
    cell(text(r.inputTokens), "num"),
    cell(text(r.outputTokens), "num"),
    cell(cache, "num"),
    cell(failureCause(r) ?? "complete"),
  );
  return tr;
}

function renderTable(): void {
  const body = $<HTMLTableElement>("requests").tBodies[0]!;
  const shown = records.filter(matches).slice(-500).reverse();
  body.replaceChildren(...shown.map(requestRow));
  $("empty").hidden = records.length > 0;
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

function groupTable(id: string, title: string, groups: readonly GroupStats[]): void {
  const table = $<HTMLTableElement>(id);
  const head = document.createElement("tr");
  for (const [label, numeric] of [[title, false], ["Requests", true], ["Errors", true], ["Tokens in", true], ["Tokens out", true], ["P50", true], ["P95", true]] as const) {
    const th = document.createElement("th");
    th.textContent = label;
    if (numeric) th.className = "num";
    head.append(th);
  }
  const rows = groups.map((g) => {
    const tr = document.createElement("tr");
    tr.append(
      cell(g.name),
      cell(number(g.requests), "num"),
      cell(number(g.errors), "num"),
      cell(number(g.inputTokens), "num"),
      cell(number(g.outputTokens), "num"),
      cell(formatMs(g.durationMs.p50), "num"),
      cell(formatMs(g.durationMs.p95), "num"),
    );
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

function renderTotals(s: Summary): void {
  const t = s.stats.total;
  const cards: [string, string][] = [
    ["Requests", number(t.requests)],
    ["Errors", number(t.errors)],
    ["Tokens in", number(t.inputTokens)],
    ["Tokens out", number(t.outputTokens)],
    ["Cache read", number(t.cacheReadTokens)],
    ["Latency p50 / p95", `${formatMs(t.durationMs.p50)} / ${formatMs(t.durationMs.p95)}`],
  ];
  $("cards").replaceChildren(
    ...cards.map(([label, value]) => {
      const div = document.createElement("div");
      div.className = "card";
      div.dataset.label = label;
      const strong = document.createElement("strong");
      strong.textContent = value;
      const span = document.createElement("span");
      span.textContent = label;
      div.append(strong, span);
      return div;
    }),
  );
  groupTable("by-model", "Model", s.stats.models);
  groupTable("by-client", "Client", s.stats.clients);
  fillFilter("f-model", s.stats.models.map((g) => g.name).filter((name) => name !== "-"));
  fillFilter("f-client", s.stats.clients.map((g) => g.name));
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
  const data = series(records, Number($<HTMLSelectElement>("window").value));
  charts.requests.update(data.requests);
  charts.tokens.update(data.tokens);
  charts.latency.update(data.latency);
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

  for (const id of ["f-model", "f-client", "f-family", "f-status"]) $(id).addEventListener("change", renderTable);
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
