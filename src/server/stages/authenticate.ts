import type { IncomingHttpHeaders } from "node:http";
import { badRequest, unauthorized } from "../../errors/index.js";
import type { Family } from "../../families/index.js";
import { checkRepeatedHeaders } from "./guard.js";

/** The client's version header (messages family), `vendor-version` accepted as an alias. */
export function clientVersion(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["anthropic-version"] ?? headers["vendor-version"];
  return typeof value === "string" && value ? value : undefined;
}

/**
 * Stages 3 and 4: headers that must come once, the local key (constant time, the first carrier the family
 * accepts), then the version header where the family needs one. Throws what the client is told.
 */
export function authenticate(
  family: Family,
  headers: IncomingHttpHeaders,
  query: string,
  repeatedHeader: string | undefined,
  keyMatches: (presented: string | undefined) => boolean,
): void {
  checkRepeatedHeaders(repeatedHeader);
  if (!keyMatches(family.presentedKey(headers, query))) {
    throw unauthorized(`Missing or wrong local key. Send ${family.keyHint} with the key printed by \`gateway env\`.`);
  }
  if (family.needsVersion && !clientVersion(headers)) {
    throw badRequest("Missing anthropic-version header. Send anthropic-version: 2023-06-01 (any version is accepted).", {
      param: "anthropic-version",
      code: "missing_version",
    });
  }
}
