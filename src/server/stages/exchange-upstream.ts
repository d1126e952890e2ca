import { GatewayError, upstreamFailed } from "../../errors/index.js";
import { upstreamRequestHeaders } from "../../upstream/header-policy.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { clientVersion } from "./authenticate.js";

/** Model lists get the aliases appended, which needs a body the gateway can read: no compression for those. */
export function listWithAliases(x: Exchange, ctx: GatewayContext): boolean {
  return x.claim!.isModelList && ctx.aliases.exact.length > 0;
}

/**
 * Stage 7: the upstream call (retries, timeouts and the key live in the upstream client). Resolves with the reply
 * once its headers arrived, or with the error to answer the client with; undefined when the client went away.
 */
export async function exchangeUpstream(x: Exchange, ctx: GatewayContext): Promise<GatewayError | undefined> {
  const headers = upstreamRequestHeaders(x.req.rawHeaders, x.req.headers.connection);
  if (listWithAliases(x, ctx)) delete headers["accept-encoding"];
  try {
    x.reply = await ctx.client.send({
      family: x.family,
      method: x.req.method ?? "GET",
      path: `${x.claim!.upstreamPath}${x.family.upstreamQuery(x.query)}`,
      headers,
      version: clientVersion(x),
      body: x.body,
      signal: x.abort.signal,
    });
    return undefined;
  } catch (error) {
    const reason: unknown = x.abort.signal.reason;
    if (reason instanceof GatewayError) return reason;
    if (x.abort.signal.aborted) return undefined;
    if (error instanceof GatewayError) return error;
    ctx.onInternalError(error);
    return upstreamFailed("The gateway failed to forward the request; see its log.");
  }
}
