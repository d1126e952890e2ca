import type { IncomingHttpHeaders } from "node:http";
import { badRequest, forbidden, type ApiError } from "../../errors/index.js";

/** A loopback Host: the name and an optional numeric port, nothing else (RFC 9112 section 3.2, RFC 3986 authority). */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/** Headers that must not appear twice: no rule could tell which copy the upstream would obey (SPEC section 3). */
const SINGLE_HEADERS: Readonly<Record<string, string>> = {
  host: "host",
  "content-type": "content-type",
  "anthropic-version": "anthropic-version",
  // An alias of anthropic-version: both together are two version headers.
  "vendor-version": "anthropic-version",
  authorization: "authorization",
  "x-api-key": "x-api-key",
  "x-goog-api-key": "x-goog-api-key",
};

/** Lengths of the names in `SINGLE_HEADERS`: most header names are skipped before any lower-casing. */
const SINGLE_LENGTHS = new Set(Object.keys(SINGLE_HEADERS).map((name) => name.length));

/** The first header of `SINGLE_HEADERS` that the client sent more than once, from Node's `rawHeaders`. */
export function repeatedHeader(rawHeaders: readonly string[]): string | undefined {
  let seen: string[] | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (!SINGLE_LENGTHS.has(name.length)) continue;
    const canonical = SINGLE_HEADERS[name.toLowerCase()];
    if (canonical === undefined) continue;
    if (seen?.includes(canonical)) return canonical;
    (seen ??= []).push(canonical);
  }
  return undefined;
}

function repeated(name: string): ApiError {
  return badRequest(`The ${name} header was sent more than once. Send it once.`, { param: name, code: "repeated_header" });
}

/**
 * Step 3 of the request path (docs/ARCHITECTURE.md), with `checkOrigin`.
 * DNS-rebinding defence: a page on `evil.example` that rebinds its name to 127.0.0.1 still sends
 * `Host: evil.example`, so only loopback names are served unless the user chose a non-loopback bind address.
 * More than one Host is 400 (RFC 9112), whatever the bind address.
 */
export function checkHost(headers: IncomingHttpHeaders, anyHostAllowed: boolean, repeatedName: string | undefined): void {
  if (repeatedName === "host") throw repeated("host");
  if (anyHostAllowed) return;
  const host = headers.host ?? "";
  if (LOOPBACK_HOST.test(host)) return;
  throw forbidden(
    `Host "${host}" is not allowed: the gateway only answers requests addressed to localhost, 127.0.0.1 or [::1]. Use http://127.0.0.1:<port> as the base URL.`,
    "host_not_allowed",
  );
}

/** The other headers that must come once (Host was checked by the Host guard). */
export function checkRepeatedHeaders(repeatedName: string | undefined): void {
  if (repeatedName !== undefined) throw repeated(repeatedName);
}

/** `--cors` only takes real origins: `null` (sandboxed frames, files) and empty ones can never be allowed. */
function originHint(origin: string): string {
  try {
    const parsed = new URL(origin);
    if (parsed.origin !== "null" && parsed.origin === origin) return ` Start the gateway with --cors ${origin} to let that page call it.`;
  } catch {
    // not an origin at all
  }
  return " Only pages served from an http(s) origin can be allowed (with --cors <origin>); this one cannot.";
}

/**
 * Browsers attach `Origin` to cross-site requests; any web page could otherwise spend the user's upstream key.
 * Native tools send no `Origin`, so they are unaffected.
 */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): void {
  const origin = headers.origin;
  if (origin === undefined || allowed.has(origin)) return;
  throw forbidden(`Origin "${origin}" is not allowed.${originHint(origin)}`, "origin_not_allowed");
}

/** Response headers for an allowed origin. */
export function corsHeaders(origin: string): Record<string, string> {
  return { "access-control-allow-origin": origin, vary: "origin" };
}

/** Headers of the answer to an allowed origin's preflight. */
export function preflightHeaders(origin: string, requestedHeaders: string | undefined): Record<string, string> {
  return {
    ...corsHeaders(origin),
    "access-control-allow-methods": "GET, POST, OPTIONS",
    ...(requestedHeaders ? { "access-control-allow-headers": requestedHeaders } : {}),
    "access-control-max-age": "600",
  };
}
