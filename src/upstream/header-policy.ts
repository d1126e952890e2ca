/**
 * Which headers cross the gateway, as named sets with the reason for each. Pure functions only, so the policy is
 * tested on its own and both directions share it.
 */

import { CLIENT_CREDENTIALS, OWN_CREDENTIALS } from "../credential-headers.js";

/** RFC 9110 section 7.6.1: meaningful for one connection only, never forwarded either way. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Metadata about the local hop; the upstream must not learn the user's local addresses from it. */
export const PROXY_METADATA: ReadonlySet<string> = new Set([
  "forwarded",
  "via",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-port",
  "x-forwarded-proto",
  "x-real-ip",
]);

/**
 * Set by the gateway itself: `host` is the upstream's own, `content-length` follows the replayed body, `expect`
 * was answered locally by Node, and the version header is re-emitted under its canonical name.
 */
export const REWRITTEN: ReadonlySet<string> = new Set(["host", "content-length", "expect", "anthropic-version", "vendor-version"]);

const NO_TOKENS: ReadonlySet<string> = new Set();

/** `Connection` values that name no other header: what nearly every request and reply carries. */
const PLAIN_CONNECTION = /^\s*(keep-alive|close)\s*$/i;

/** Header names listed in a `Connection` header are hop-by-hop too. */
function connectionTokens(value: string | string[] | undefined): ReadonlySet<string> {
  if (value === undefined || (typeof value === "string" && PLAIN_CONNECTION.test(value))) return NO_TOKENS;
  const tokens = new Set<string>();
  for (const part of Array.isArray(value) ? value : [value]) {
    for (const token of part.split(",")) {
      const name = token.trim().toLowerCase();
      if (name) tokens.add(name);
    }
  }
  return tokens;
}

export type HeaderMap = Record<string, string | string[]>;

/** What a `key: "client"` upstream gets of a request's own credential: everything but cookies, which belong to localhost. */
const COOKIES_ONLY: ReadonlySet<string> = new Set(["cookie"]);

/**
 * The client's headers to send upstream, from Node's `rawHeaders` (which keeps repeated headers), minus
 * hop-by-hop, credential, proxy and rewritten headers. `ownCredential`: the request's own credential goes on as it
 * came (SPEC 11, Your own login: to a `key: "client"` upstream only).
 */
export function upstreamRequestHeaders(rawHeaders: readonly string[], connection: string | string[] | undefined, ownCredential = false): HeaderMap {
  const named = connectionTokens(connection);
  const dropped = ownCredential ? COOKIES_ONLY : CLIENT_CREDENTIALS;
  const out: HeaderMap = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || dropped.has(name) || PROXY_METADATA.has(name) || REWRITTEN.has(name)) continue;
    if (named.has(name)) continue;
    const value = rawHeaders[i + 1]!;
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[name] = [existing, value];
  }
  return out;
}

/** The upstream's response headers to give the client: all but hop-by-hop ones. */
export function clientResponseHeaders(headers: Record<string, string | string[] | undefined>): HeaderMap {
  const named = connectionTokens(headers.connection);
  const out: HeaderMap = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Headers that belong to the client's format or to the body the client sent, dropped from a translated request
 * (SPEC 10 rule 1): the upstream gets its own format's auth and version headers, a body the gateway wrote, and no
 * compression it would have to undo.
 */
const CLIENT_FORMAT_HEADER = /^(anthropic-|x-goog-|openai-beta$|content-type$|content-encoding$|accept$|accept-encoding$)/;

/**
 * `headers` without the client format's own (see `CLIENT_FORMAT_HEADER`). `ownCredential`: a request's own credential
 * stays, Gemini's `x-goog-api-key` too, as it came (SPEC 11, Your own login: "goes to that upstream unchanged").
 */
export function withoutClientFormatHeaders(headers: HeaderMap, ownCredential = false): HeaderMap {
  const out: HeaderMap = {};
  for (const name in headers) if (!CLIENT_FORMAT_HEADER.test(name) || (ownCredential && OWN_CREDENTIALS.includes(name))) out[name] = headers[name]!;
  return out;
}
