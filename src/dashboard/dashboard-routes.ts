import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { H3, H3Event } from "h3";
import { notFound, unauthorized } from "../errors/index.js";
import { bearerToken } from "../formats/bearer.js";
import { INSTALL_ROOT } from "../install-root.js";
import type { BudgetState } from "../budgets/budgets.js";
import type { SessionSpend } from "../budgets/spend-ledger.js";
import type { SpendTracker } from "../budgets/spend-tracker.js";
import type { Pricer } from "../pricing/index.js";
import type { RequestRecord } from "../request-log/record.js";
import type { TeamBudget } from "../upstream/team-catalog.js";
import type { CatalogInUse } from "../team/team-catalogs.js";
import type { UpstreamKeyState } from "../upstream/key-states.js";
import { summarize } from "../stats/summarize.js";
import type { Capture, CaptureStore } from "./capture-store.js";
import type { LiveFeed } from "./live-feed.js";

/** A record as the page gets it: with its estimated cost in USD (`null`: unknown; absent: nothing to price). */
export type PricedRecord = RequestRecord & { costUsd?: number | null };

/** What `/ui/api/statusline?session=<id>` answers: what `gateway statusline` prints a line from. */
export interface StatusLineAnswer {
  version: string;
  /** Spent since the local day began, in all. */
  today: { spentUsd: number; unpricedRequests: number };
  /** The session asked about; null when it sent nothing (or none was named). */
  session: SessionSpend | null;
  budgets: BudgetState[];
  /** Each team upstream's budget (SPEC 12); absent from gateways before it. */
  teams?: TeamBudgetOf[];
}

/** What `/ui/api/requests/<id>` answers: the record and, when one is kept, its capture. */
export interface RequestDetail {
  record: PricedRecord | undefined;
  capture: Capture | null;
  captureMode: string;
}

export interface DashboardOptions {
  feed: LiveFeed;
  captures: CaptureStore;
  keyMatches: (presented: string | undefined) => boolean;
  version: string;
  /** The default upstream's label, for the header of the page. */
  upstream: string;
  /** The gateway's pricer (the user's `prices`, then the bundled table), loaded on first use. */
  pricer: () => Promise<Pricer>;
  /** What has been spent, and the budgets (SPEC 11): each budget's use, at a glance. */
  spend: SpendTracker;
  /** Whether the gateway has each upstream's key, for `gateway status` (never a key). */
  keyStates: () => Promise<UpstreamKeyState[]>;
  /** Each team upstream's budget as its team gateway last told it (SPEC 12), by upstream name. */
  teamBudgets?: () => TeamBudgetOf[];
  /** Reads each team upstream's catalog again and routes by it from now on (`gateway catalog --refresh`), by upstream name. */
  refreshCatalogs?: () => Promise<Record<string, CatalogInUse>>;
}

/** A team upstream's budget (LiteLLM's `/key/info`), for the status line and the page. */
export interface TeamBudgetOf extends TeamBudget {
  upstream: string;
}

/** The page may load nothing from anywhere but the gateway itself, and may not be framed. */
export const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** Data answers are never cached. */
export const DATA_HEADERS = { ...PAGE_HEADERS, "cache-control": "no-store" };

const STATIC: Readonly<Record<string, { file: string; type: string }>> = {
  "/ui/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/ui/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/ui/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};

/** The page's files, built by `npm run build` into `dist/ui/`, read once. */
const files = new Map<string, Buffer>();
function pageFile(name: string): Buffer | undefined {
  if (!files.has(name)) {
    try {
      files.set(name, readFileSync(join(INSTALL_ROOT, "dist", "ui", name)));
    } catch {
      return undefined;
    }
  }
  return files.get(name);
}

const json = (body: unknown): Response => new Response(JSON.stringify(body), { headers: { ...DATA_HEADERS, "content-type": "application/json" } });
const nothingAt = (event: H3Event) => notFound(`Nothing is served at ${event.url.pathname}.`);

/**
 * `/ui/...` as h3 routes (SPEC section 9): the page's own files for anyone who passed the Host and Origin guards;
 * every piece of data only with the local key in a header (never in a URL, so never in a log line or a browser
 * history). Errors are thrown and rendered by the app's one error handler, in the chat shape with an `x-request-id`.
 */
export function registerDashboard(app: H3, options: DashboardOptions): void {
  const { feed, captures } = options;
  const startedAt = new Date().toISOString();
  // The price table loads with the first data request (about 35 ms), not at start; the live feed prices from then on.
  let pricer: Promise<Pricer> | undefined;
  const pricing = (): Promise<Pricer> =>
    (pricer ??= options.pricer().then((price) => {
      feed.usePricer(price);
      return price;
    }));
  const priced = (price: Pricer, r: RequestRecord): PricedRecord => ({ ...r, headers: undefined, costUsd: price(r) });
  const requireKey = (event: H3Event) => {
    if (!options.keyMatches(bearerToken(event.req.headers.get("authorization") ?? undefined))) {
      throw unauthorized("The dashboard's data needs the local key in an Authorization: Bearer header. Open the page with `gateway ui`.");
    }
  };

  app.get("/ui/api/summary", async (event) => {
    requireKey(event);
    const price = await pricing();
    const records = feed.recent();
    return json({
      version: options.version,
      upstream: options.upstream,
      startedAt,
      capture: { mode: captures.mode, ...captures.stats() },
      records: records.slice(-1000).map((r) => priced(price, r)),
      stats: summarize(records, price),
      budgets: await options.spend.states(),
      teams: options.teamBudgets?.() ?? [],
    });
  });
  app.get("/ui/api/live", (event) => {
    requireKey(event);
    return new Response(feed.follow(), { headers: { ...PAGE_HEADERS, "content-type": "application/x-ndjson", "cache-control": "no-store", "x-accel-buffering": "no" } });
  });
  app.get("/ui/api/requests/:id", async (event) => {
    requireKey(event);
    const price = await pricing();
    const id = event.context.params?.id ?? "";
    const record = [...feed.recent()].reverse().find((r) => r.requestId === id);
    const capture = captures.get(id);
    if (!/^[\w-]+$/.test(id) || (!record && !capture)) throw nothingAt(event);
    const detail: RequestDetail = { record: record && priced(price, record), capture: capture ?? null, captureMode: captures.mode };
    return json(detail);
  });
  // `gateway statusline` (SPEC 11): today's spend, one session's, and where its last request went, from running totals.
  app.get("/ui/api/statusline", async (event) => {
    requireKey(event);
    const ledger = await options.spend.ledger();
    const id = event.url.searchParams.get("session");
    const answer: StatusLineAnswer = {
      version: options.version,
      today: { spentUsd: ledger.spent("daily"), unpricedRequests: ledger.unpriced("daily") },
      session: (id && ledger.session(id)) || null,
      budgets: await options.spend.states(),
      teams: options.teamBudgets?.() ?? [],
    };
    return json(answer);
  });
  app.get("/ui/api/upstreams", async (event) => {
    requireKey(event);
    return json({ upstreams: await options.keyStates() });
  });
  // `gateway catalog --refresh` (SPEC 12): a running gateway reads the team catalogs again and routes by them at once.
  app.post("/ui/api/team/refresh", async (event) => {
    requireKey(event);
    if (!options.refreshCatalogs) throw nothingAt(event);
    return json({ catalogs: await options.refreshCatalogs() });
  });
  app.all("/ui/api/**", (event) => {
    requireKey(event);
    throw nothingAt(event);
  });
  app.all("/ui/**", (event) => {
    if (event.url.pathname === "/ui") return new Response(null, { status: 301, headers: { location: "/ui/" } });
    const method = event.req.method;
    const page = method === "GET" || method === "HEAD" ? STATIC[event.url.pathname] : undefined;
    const body = page && pageFile(page.file);
    if (!page || !body) throw nothingAt(event);
    return new Response(method === "HEAD" ? null : new Uint8Array(body), { headers: { ...PAGE_HEADERS, "content-type": page.type, "content-length": String(body.length) } });
  });
}
