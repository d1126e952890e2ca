import type { IncomingHttpHeaders } from "node:http";
import { chatFamily, messagesFamily, type Family } from "../families/index.js";

/** The endpoints whose body the gateway checks; everything else is passed through unchecked. */
export type Endpoint = "chat_completions" | "messages" | "count_tokens" | "models" | "passthrough";

/** Where a local request goes upstream. */
export interface Route {
  family: Family;
  endpoint: Endpoint;
  /** Path under the upstream base, family prefix included, query not included. */
  upstreamPath: string;
}

/** What the router decided for one request. */
export type Resolution =
  | { kind: "forward"; route: Route }
  | { kind: "health" }
  | { kind: "preconnect" }
  | { kind: "not_found" };

const ENCODED_SEPARATOR = /%2f|%5c/i;

function wantsMessages(headers: IncomingHttpHeaders): boolean {
  return headers["anthropic-version"] !== undefined || headers["vendor-version"] !== undefined;
}

function endpointOf(method: string, v1Path: string): Endpoint {
  if (method === "POST" && v1Path === "/v1/chat/completions") return "chat_completions";
  if (method === "POST" && v1Path === "/v1/messages") return "messages";
  if (method === "POST" && v1Path === "/v1/messages/count_tokens") return "count_tokens";
  if (method === "GET" && v1Path === "/v1/models") return "models";
  return "passthrough";
}

/**
 * Maps a method and an already dot-segment-normalised pathname (WHATWG URL parsing resolves `..` and `%2e%2e`)
 * to a family and an upstream path. Encoded separators are refused outright, so no upstream ever sees a path
 * that escapes the family prefix.
 */
export function resolveRoute(method: string, pathname: string, headers: IncomingHttpHeaders, segment: string): Resolution {
  if (pathname === "/health" && (method === "GET" || method === "HEAD")) return { kind: "health" };
  if (ENCODED_SEPARATOR.test(pathname) || pathname.includes("\\")) return { kind: "not_found" };
  const segmentRoot = `/${segment}`;
  if (method === "HEAD" && (pathname === "/" || pathname === segmentRoot || pathname === `${segmentRoot}/`)) {
    return { kind: "preconnect" };
  }

  let v1Path: string;
  let family: Family;
  if (pathname.startsWith(`${segmentRoot}/v1/`)) {
    v1Path = pathname.slice(segmentRoot.length);
    family = messagesFamily;
  } else if (pathname.startsWith("/v1/")) {
    v1Path = pathname;
    family = wantsMessages(headers) ? messagesFamily : chatFamily;
  } else {
    return { kind: "not_found" };
  }

  const endpoint = endpointOf(method, v1Path);
  if (endpoint === "chat_completions" && family === messagesFamily && pathname !== v1Path) {
    return { kind: "forward", route: { family, endpoint: "passthrough", upstreamPath: `${segmentRoot}${v1Path}` } };
  }
  if (endpoint === "chat_completions") family = chatFamily;
  if (endpoint === "messages" || endpoint === "count_tokens") family = messagesFamily;
  return { kind: "forward", route: { family, endpoint, upstreamPath: `${family.upstreamPrefix(segment)}${v1Path}` } };
}
