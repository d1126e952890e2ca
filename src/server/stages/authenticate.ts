import type { IncomingHttpHeaders } from "node:http";
import { badRequest, unauthorized } from "../../errors/index.js";
import { ownCredentialValues } from "../../credential-headers.js";
import { bearerToken } from "../../formats/bearer.js";
import type { Family } from "../../formats/index.js";
import { checkRepeatedHeaders } from "./guard.js";

/** The shape of a gateway's local key (`local-key/local-key.ts`): one of another gateway, or an old one, is never passed on. */
const LOCAL_KEY_SHAPE = /^gw-[A-Za-z0-9_-]{43}$/;

/**
 * Whether any carrier of the request holds the local key: each credential header (a bearer without its scheme) and,
 * in the family that reads one (Gemini), a query `key=`. A request that sends its own credential beside the local key (Claude Code with both
 * `ANTHROPIC_API_KEY` and `gateway env`'s token) is served as the local key's, so the local key never goes upstream
 * with a credential that is passed on.
 */
function carriesLocalKey(family: Family, headers: IncomingHttpHeaders, query: string, keyMatches: (presented: string | undefined) => boolean): boolean {
  const values = ownCredentialValues(headers, undefined).map((value) => bearerToken(value) ?? value);
  values.push(...family.auth.queryKeys(query));
  return values.some((value) => keyMatches(value));
}

/**
 * `query` without any parameter whose value is the local key. Outside the gemini family a `key=` is an ordinary
 * parameter (SPEC 3) and goes upstream as it came, but the local key never leaves the machine (SPEC 11), whatever
 * name a client put it under. A query that cannot hold the key is returned as it is, with no parsing.
 */
export function withoutLocalKey(query: string, keyMatches: (presented: string | undefined) => boolean): string {
  if (query.length < 4) return query;
  const parts = query.slice(1).split("&");
  // Each value decoded as a server would decode it (`%2D` is `-`), so no spelling of the key gets through.
  const kept = parts.filter((part) => !keyMatches(new URLSearchParams(part).values().next().value));
  if (kept.length === parts.length) return query;
  return kept.length > 0 ? `?${kept.join("&")}` : "";
}

/** How a request proved it may be served: the local key, or a credential of its own (SPEC 11, Your own login). */
export type Credential = "local" | "own";

/**
 * Step 4 of the request path (docs/ARCHITECTURE.md).
 * Headers that must come once, the local key (constant time, the first carrier the family accepts),
 * then the version header where the family needs one. With an upstream of `key: "client"` configured (`ownLogins`), a
 * request may instead carry a credential of its own (SPEC 11): it is then served only by upstreams that spend no
 * credential of the gateway's (the fallback walk sees to it). A value shaped like a local key but not this gateway's
 * is refused as a wrong local key, never taken for a credential of the client's. Throws what the client is told.
 */
export function authenticate(
  family: Family,
  headers: IncomingHttpHeaders,
  query: string,
  repeatedHeader: string | undefined,
  keyMatches: (presented: string | undefined) => boolean,
  ownLogins: boolean,
): Credential {
  checkRepeatedHeaders(repeatedHeader);
  const presented = family.auth.presentedKey(headers, query);
  const credential =
    keyMatches(presented) || (ownLogins && carriesLocalKey(family, headers, query, keyMatches)) ? "local" : ownLogins && presented !== undefined && !LOCAL_KEY_SHAPE.test(presented) ? "own" : undefined;
  if (credential === undefined) {
    throw unauthorized(`Missing or wrong local key. Send ${family.auth.keyHint} with the key printed by \`gateway env\`.`);
  }
  if (family.auth.defaultVersion !== undefined && !family.auth.version(headers)) {
    throw badRequest("Missing anthropic-version header. Send anthropic-version: 2023-06-01 (any version is accepted).", {
      param: "anthropic-version",
      code: "missing_version",
    });
  }
  return credential;
}
