import type { IncomingHttpHeaders } from "node:http";
import { FAMILIES, chatFamily, type Claim, type Family, type Segments } from "../../families/index.js";
import type { GatewayContext } from "../gateway-context.js";
import type { Exchange } from "../exchange.js";

/** What the gateway does with a request, once its path is known. */
export type Resolution = "forward" | "health" | "dashboard" | "preconnect" | "not_found";

/** Paths with nothing WHATWG parsing would change: no dot segments, escapes, backslashes or odd characters. */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~.:-]+)+$/;
const DOT_SEGMENT = /\/\.\.?(\/|$)/;
const ENCODED_SEPARATOR = /%2f|%5c/i;

function splitUrl(url: string): { pathname: string; query: string } {
  const q = url.indexOf("?");
  const rawPath = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q);
  if (PLAIN_PATH.test(rawPath) && !DOT_SEGMENT.test(rawPath)) return { pathname: rawPath, query };
  // WHATWG parsing resolves "." and ".." segments, including their percent-encoded forms.
  try {
    return { pathname: new URL(`http://localhost${rawPath.startsWith("/") ? rawPath : `/${rawPath}`}`).pathname, query };
  } catch {
    return { pathname: rawPath, query };
  }
}

/**
 * Stage 1: the family, the upstream path and the endpoint's checks, decided from the method, the normalised path
 * and the headers before any check runs (SPEC section 2), so every answer after this is in the caller's shape.
 * Encoded separators are refused outright: no upstream ever sees a path that escapes the family prefix.
 */
export function resolve(x: Exchange, ctx: GatewayContext): Resolution {
  const method = x.req.method ?? "GET";
  const { pathname, query } = splitUrl(x.req.url ?? "/");
  x.path = pathname;
  x.query = query;
  if (pathname === "/health" && (method === "GET" || method === "HEAD")) return "health";
  if (pathname === "/ui" || pathname.startsWith("/ui/")) return "dashboard";
  if (ENCODED_SEPARATOR.test(pathname) || pathname.includes("\\")) return "not_found";
  const claimed = claimPath(method, pathname, x.req.headers, ctx.segments);
  if (claimed) {
    x.family = claimed.family;
    x.claim = claimed.claim;
    return "forward";
  }
  x.family = chatFamily;
  if (method === "HEAD" && isBaseUrl(pathname, ctx)) return "preconnect";
  return "not_found";
}

/** The first family that serves this method and path, in `FAMILIES` order, with what it decided. */
export function claimPath(method: string, pathname: string, headers: IncomingHttpHeaders, segments: Segments): { family: Family; claim: Claim } | undefined {
  for (const family of FAMILIES) {
    const claim = family.claim(method, pathname, headers, segments);
    if (claim) return { family, claim };
  }
  return undefined;
}

/** A base URL a tool may pre-connect to with `HEAD` (Claude Code does): `/` or a family's segment root. */
function isBaseUrl(pathname: string, ctx: GatewayContext): boolean {
  if (pathname === "/") return true;
  return FAMILIES.some((family) => {
    const root = family.prefix(ctx.segments);
    return root !== "" && (pathname === root || pathname === `${root}/`);
  });
}
