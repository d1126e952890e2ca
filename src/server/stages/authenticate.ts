import type { IncomingHttpHeaders } from "node:http";
import { badRequest, unauthorized } from "../../errors/index.js";
import type { Family } from "../../formats/index.js";
import { checkRepeatedHeaders } from "./guard.js";

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
  if (!keyMatches(family.auth.presentedKey(headers, query))) {
    throw unauthorized(`Missing or wrong local key. Send ${family.auth.keyHint} with the key printed by \`gateway env\`.`);
  }
  if (family.auth.defaultVersion !== undefined && !family.auth.version(headers)) {
    throw badRequest("Missing anthropic-version header. Send anthropic-version: 2023-06-01 (any version is accepted).", {
      param: "anthropic-version",
      code: "missing_version",
    });
  }
}
