import { badRequest, unauthorized, type GatewayError } from "../../errors/index.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { checkRepeatedHeaders } from "./guard.js";

/** The client's version header (messages family), `vendor-version` accepted as an alias. */
export function clientVersion(x: Exchange): string | undefined {
  const value = x.req.headers["anthropic-version"] ?? x.req.headers["vendor-version"];
  return typeof value === "string" && value ? value : undefined;
}

/**
 * Stages 3 and 4: headers that must come once, the local key (constant time, the first carrier the family accepts),
 * then the version header where the family needs one.
 */
export function authenticate(x: Exchange, ctx: GatewayContext): GatewayError | undefined {
  const repeated = checkRepeatedHeaders(x.repeatedHeader);
  if (repeated) return repeated;
  if (!ctx.keyMatches(x.family.presentedKey(x.req.headers, x.query))) {
    return unauthorized(`Missing or wrong local key. Send ${x.family.keyHint} with the key printed by \`gateway env\`.`);
  }
  if (x.family.needsVersion && !clientVersion(x)) {
    return badRequest("Missing anthropic-version header. Send anthropic-version: 2023-06-01 (any version is accepted).", {
      param: "anthropic-version",
      code: "missing_version",
    });
  }
  return undefined;
}
