import type { IncomingHttpHeaders } from "node:http";
import { FAMILIES, claimPath, type Endpoint, type Segments } from "../../formats/index.js";

/** What the gateway does with a request, decided from its method, path and headers before any check runs. */
export type Resolved =
  | { kind: "proxy"; path: string; query: string; endpoint: Endpoint }
  | { kind: "health" | "metrics" | "dashboard" | "preconnect" | "not_found"; path: string; query: string };

/** Paths with nothing WHATWG parsing would change: no dot segments, escapes, backslashes or odd characters. */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~.:-]+)+$/;
const DOT_SEGMENT = /\/\.\.?(\/|$)/;
const ENCODED_SEPARATOR = /%2f|%5c/i;

function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf("?");
  const rawPath = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q);
  if (PLAIN_PATH.test(rawPath) && !DOT_SEGMENT.test(rawPath)) return { path: rawPath, query };
  // WHATWG parsing resolves "." and ".." segments, including their percent-encoded forms.
  try {
    return { path: new URL(`http://localhost${rawPath.startsWith("/") ? rawPath : `/${rawPath}`}`).pathname, query };
  } catch {
    return { path: rawPath, query };
  }
}

/** A base URL a tool may pre-connect to with `HEAD` (Claude Code does): `/` or a family's segment root. */
function isBaseUrl(path: string, segments: Segments): boolean {
  if (path === "/") return true;
  return FAMILIES.some((family) => {
    const root = family.paths.prefix(segments);
    return root !== "" && (path === root || path === `${root}/`);
  });
}

/**
 * Step 2 of the request path (docs/ARCHITECTURE.md).
 * The endpoint and its family, from the method, the normalised path and the headers, before any check
 * runs (SPEC section 2), so every answer after this is in the caller's shape. Encoded separators are refused
 * outright: no upstream ever sees a path that escapes the family prefix.
 */
export function resolve(method: string, url: string, headers: IncomingHttpHeaders, segments: Segments): Resolved {
  const { path, query } = splitUrl(url);
  if (path === "/health" && (method === "GET" || method === "HEAD")) return { kind: "health", path, query };
  if (path === "/metrics" && method === "GET") return { kind: "metrics", path, query };
  if (path === "/ui" || path.startsWith("/ui/")) return { kind: "dashboard", path, query };
  const endpoint = ENCODED_SEPARATOR.test(path) || path.includes("\\") ? undefined : claimPath(method, path, headers, segments);
  if (endpoint) return { kind: "proxy", path, query, endpoint };
  if (method === "HEAD" && isBaseUrl(path, segments)) return { kind: "preconnect", path, query };
  return { kind: "not_found", path, query };
}
