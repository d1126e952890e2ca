import { estimateHubTokens } from "./count-tokens.js";
import type { Json } from "./hub.js";
import type { ClientSide, ReplyHints, TranslateContext, UpstreamSide } from "./types.js";

/** A request in the upstream's format, and what the reply side needs to translate back. */
export interface TranslatedRequest {
  body: Json;
  hints: ReplyHints;
}


/**
 * A client request through the hub to the upstream's format (SPEC 10, Translation), with what depends on the
 * upstream rather than on either format: the model it knows, the output cap of its config, reasoning effort only
 * where it accepts it.
 */
export function translateRequest(client: ClientSide, upstream: UpstreamSide, body: Json, stream: boolean, ctx: TranslateContext): TranslatedRequest {
  const { request, hints } = client.toHub(body, ctx);
  request.model = ctx.upstreamModel;
  if (stream) request.stream = true;
  else delete request.stream;
  if (ctx.maxOutputTokens !== undefined && request.max_tokens !== undefined) request.max_tokens = Math.min(request.max_tokens, ctx.maxOutputTokens);
  if (!ctx.reasoningEffort) delete request.reasoning_effort;
  return { body: upstream.fromHub(request, ctx), hints: Object.assign({}, hints, { inputTokens: hints.inputTokens ?? estimateHubTokens(request) }) };
}
