import type { IncomingHttpHeaders } from "node:http";

/** Reads the token of an `Authorization: Bearer <token>` header (scheme is case-insensitive). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header || header.length < 8) return undefined;
  if (header.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const token = header.slice(7).trim();
  return token || undefined;
}

/** A header's value when it is a non-empty string. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === "string" && value ? value : undefined;
}
