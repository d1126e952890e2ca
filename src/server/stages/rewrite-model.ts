import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { findTopLevelString, replaceString } from "../json-scan.js";

const looksLikeJsonObject = (body: Buffer | undefined): body is Buffer => body !== undefined && body.length > 1 && body.includes(0x7b);

/**
 * Stage 6: which model the request names (the path's for Gemini, else the `model` field of any JSON body) and the
 * alias rewrite (SPEC section 7). Only the model's bytes change: the body is cut around them and every other byte
 * goes upstream as it came. Requests whose model matches no alias keep their original buffer.
 */
export function rewriteModel(x: Exchange, ctx: GatewayContext, parsed: Record<string, unknown> | undefined): void {
  const claim = x.claim!;
  if (claim.pathModel !== undefined) {
    x.model = claim.pathModel;
    const target = ctx.aliases.any ? ctx.aliases.resolve(x.model) : undefined;
    if (target === undefined) return;
    x.aliasTarget = target;
    const at = claim.upstreamPath.lastIndexOf(`/models/${claim.pathModel}:`);
    claim.upstreamPath = `${claim.upstreamPath.slice(0, at)}/models/${target}${claim.upstreamPath.slice(at + 8 + claim.pathModel.length)}`;
    return;
  }
  if (parsed) x.model = typeof parsed.model === "string" ? parsed.model : undefined;
  else if (looksLikeJsonObject(x.body)) x.model = findTopLevelString(x.body, "model")?.value;
  const target = x.model !== undefined && ctx.aliases.any ? ctx.aliases.resolve(x.model) : undefined;
  if (target === undefined || !x.body) return;
  const field = findTopLevelString(x.body, "model");
  if (!field) return;
  x.aliasTarget = target;
  x.body = replaceString(x.body, field, target);
}
