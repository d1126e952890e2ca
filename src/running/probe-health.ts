import { request as httpRequest } from "node:http";
import type { CatalogInUse } from "../team/team-catalogs.js";
import type { UpstreamKeyState } from "../upstream/key-states.js";

/** What `/health` of a local gateway said, or undefined when nothing (or something else) answers. */
export interface Health {
  status: string;
  version: string;
  upstream: string;
  /** The serving process (newer gateways say). */
  pid?: number;
  /** `keyFingerprint` of the local key it accepts (newer gateways say): tells this user's gateways from others'. */
  keyFingerprint?: string;
  /** Every upstream it serves: name, origin (or `echo`), formats (SPEC 10). */
  upstreams?: { name: string; url: string; formats: string[] }[];
}

/** More than any gateway's answer to these questions; whatever else listens on the port is not read further. */
const MAX_BYTES = 65_536;

/**
 * `GET http://127.0.0.1:<port><path>` (or `method`) answered 200 with JSON, bounded to a short time; undefined for
 * anything else.
 * `node:http` rather than `fetch`: the global fetch loads Node's bundled undici on first use (about 13 ms), which
 * `gateway env` and `status` pay every time.
 */
export function getLocalJson(port: number, path: string, headers: Record<string, string>, timeoutMs: number, method: "GET" | "POST" = "GET"): Promise<unknown> {
  return new Promise((resolve) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, method, headers, timeout: timeoutMs, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        if (text.length > MAX_BYTES) request.destroy();
      });
      response.on("end", () => {
        try {
          resolve(response.statusCode === 200 ? JSON.parse(text) : undefined);
        } catch {
          resolve(undefined);
        }
      });
      response.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
    request.on("close", () => resolve(undefined));
    request.end();
  });
}

/** Asks `http://127.0.0.1:<port>/health`. */
export async function probeHealth(port: number, timeoutMs = 1_500): Promise<Health | undefined> {
  const body = (await getLocalJson(port, "/health", {}, timeoutMs)) as Partial<Health> | null | undefined;
  return body?.status === "ok" && typeof body.version === "string" ? (body as Health) : undefined;
}

/**
 * Whether the gateway on `port` has each upstream's key (`/ui/api/upstreams`, which takes the local key); undefined
 * when it does not say (a gateway older than the question, or not this user's).
 */
export async function askKeyStates(port: number, localKey: string, timeoutMs = 6_000): Promise<UpstreamKeyState[] | undefined> {
  const body = (await getLocalJson(port, "/ui/api/upstreams", { authorization: `Bearer ${localKey}` }, timeoutMs)) as { upstreams?: unknown } | null | undefined;
  return Array.isArray(body?.upstreams) ? (body.upstreams as UpstreamKeyState[]) : undefined;
}

/** A team gateway's three reads (SPEC 12) may each take their 5 s timeout: more than that, and the gateway is stuck. */
const CATALOG_REFRESH_TIMEOUT_MS = 20_000;

/**
 * Asks the gateway on `port` to read its team upstreams' catalogs again and route by them at once
 * (`POST /ui/api/team/refresh`, which takes the local key): what it read, by upstream name; undefined when it does
 * not say (a gateway older than the question, or not this user's).
 */
export async function askCatalogRefresh(port: number, localKey: string, timeoutMs = CATALOG_REFRESH_TIMEOUT_MS): Promise<Record<string, CatalogInUse> | undefined> {
  const body = (await getLocalJson(port, "/ui/api/team/refresh", { authorization: `Bearer ${localKey}` }, timeoutMs, "POST")) as { catalogs?: unknown } | null | undefined;
  return typeof body?.catalogs === "object" && body.catalogs !== null ? (body.catalogs as Record<string, CatalogInUse>) : undefined;
}
