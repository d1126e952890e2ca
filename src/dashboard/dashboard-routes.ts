import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { summarize } from "../request-log/summarize.js";
import { notFound, unauthorized, type GatewayError } from "../errors/index.js";
import { bearerToken } from "../families/bearer.js";
import { chatFamily } from "../families/index.js";
import { sendError } from "../server/render-error.js";
import type { RequestRecord } from "../request-log/record.js";
import type { Capture, CaptureStore } from "./capture-store.js";
import type { LiveFeed } from "./live-feed.js";

/** What `/ui/api/requests/<id>` answers: the record and, when one is kept, its capture. */
export interface RequestDetail {
  record: RequestRecord | undefined;
  capture: Capture | null;
  captureMode: string;
}

export interface DashboardOptions {
  feed: LiveFeed;
  captures: CaptureStore;
  keyMatches: (presented: string | undefined) => boolean;
  /** The gateway's request ids, for the `x-request-id` of an error. */
  nextRequestId: () => string;
  version: string;
  upstream: string;
}

/** The page may load nothing from anywhere but the gateway itself, and may not be framed. */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

const STATIC: Readonly<Record<string, string>> = {
  "/ui/": "index.html",
  "/ui/app.js": "app.js",
  "/ui/app.css": "app.css",
};
const TYPES: Readonly<Record<string, string>> = { html: "text/html; charset=utf-8", js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

/** The page's files, built by `npm run build` into `dist/ui/`, read once. */
const files = new Map<string, Buffer>();
function pageFile(name: string): Buffer | undefined {
  if (!files.has(name)) {
    try {
      files.set(name, readFileSync(new URL(`../ui/${name}`, import.meta.url)));
    } catch {
      return undefined;
    }
  }
  return files.get(name);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const JSON_HEADERS = { ...PAGE_HEADERS, "cache-control": "no-store" };
const keyNeeded = () => unauthorized("The dashboard's data needs the local key in an Authorization: Bearer header. Open the page with `gateway ui`.");
const nothingAt = (path: string) => notFound(`Nothing is served at ${path}.`);

/**
 * `/ui/...` (SPEC section 9): the page's own files for anyone who passed the Host and Origin guards; every piece
 * of data only with the local key in a header (never in a URL, so never in a log line or a browser history).
 */
export function createDashboard(options: DashboardOptions) {
  const { feed, captures } = options;
  const startedAt = new Date().toISOString();
  /** Errors go through the server's one renderer: the chat shape, with an `x-request-id` like every local error. */
  const refuse = (res: ServerResponse, error: GatewayError) => sendError(res, chatFamily, error, options.nextRequestId(), JSON_HEADERS);

  function api(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | void {
    if (!options.keyMatches(bearerToken(req.headers.authorization))) return refuse(res, keyNeeded());
    if (path === "/ui/api/summary") {
      const records = feed.recent();
      return json(res, 200, {
        version: options.version,
        upstream: options.upstream,
        startedAt,
        capture: { mode: captures.mode, ...captures.stats() },
        records: records.slice(-1000).map((r) => ({ ...r, headers: undefined })),
        stats: summarize(records),
      });
    }
    if (path === "/ui/api/live") {
      res.writeHead(200, { ...PAGE_HEADERS, "content-type": "application/x-ndjson", "cache-control": "no-store", "x-accel-buffering": "no" });
      return feed.follow(res);
    }
    const id = /^\/ui\/api\/requests\/([\w-]+)$/.exec(path)?.[1];
    if (id) {
      const record = [...feed.recent()].reverse().find((r) => r.requestId === id);
      const capture = captures.get(id);
      if (!record && !capture) return refuse(res, nothingAt(path));
      const detail: RequestDetail = { record: record && { ...record, headers: undefined }, capture: capture ?? null, captureMode: captures.mode };
      return json(res, 200, detail);
    }
    refuse(res, nothingAt(path));
  }

  return {
    /** Resolves once the answer is complete: for the live feed, when the page goes away. */
    handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | void {
      if (path === "/ui") {
        res.writeHead(301, { location: "/ui/" });
        return void res.end();
      }
      if (path.startsWith("/ui/api/")) return api(req, res, path);
      const name = req.method === "GET" || req.method === "HEAD" ? STATIC[path] : undefined;
      const body = name ? pageFile(name) : undefined;
      if (!name || !body) return refuse(res, nothingAt(path));
      res.writeHead(200, { "content-type": TYPES[name.split(".").pop()!]!, "content-length": body.length, ...PAGE_HEADERS });
      res.end(req.method === "HEAD" ? undefined : body);
    },
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;
