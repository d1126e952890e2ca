import type { IncomingHttpHeaders } from "node:http";
import { forbidden, type GatewayError } from "../errors.js";
import { isLoopbackHost } from "../config/index.js";

/** Host header value without its port: `localhost:8484` → `localhost`, `[::1]:8484` → `[::1]`. */
function hostName(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * DNS-rebinding defence: a page on `evil.example` that rebinds its name to 127.0.0.1 still sends
 * `Host: evil.example`, so only loopback names are served unless the user chose a non-loopback bind address.
 */
export function checkHost(headers: IncomingHttpHeaders, anyHostAllowed: boolean): GatewayError | undefined {
  if (anyHostAllowed) return undefined;
  const host = headers.host;
  const name = host ? hostName(host).toLowerCase() : "";
  if (name === "localhost" || name === "127.0.0.1" || name === "[::1]") return undefined;
  return forbidden(
    `Host "${host ?? ""}" is not allowed: the gateway only answers requests addressed to localhost, 127.0.0.1 or [::1]. Use http://127.0.0.1:<port> as the base URL.`,
    "host_not_allowed",
  );
}

/**
 * Browsers attach `Origin` to cross-site requests; any web page could otherwise spend the user's upstream key.
 * Native tools send no `Origin`, so they are unaffected.
 */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): GatewayError | undefined {
  const origin = headers.origin;
  if (origin === undefined || allowed.has(origin)) return undefined;
  return forbidden(
    `Origin "${origin}" is not allowed. Start the gateway with --cors ${origin} to let that page call it.`,
    "origin_not_allowed",
  );
}

/** Whether a bind address means the host guard must stand aside (the user chose to serve other hosts). */
export function bindsBeyondLoopback(host: string): boolean {
  return !isLoopbackHost(host);
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
