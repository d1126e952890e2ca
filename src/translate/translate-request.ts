import { estimateHubTokens } from "./count-tokens.js";
import type { Json } from "./hub.js";
import type { ReplyHints, ToHub, TranslateContext, UpstreamSide } from "./types.js";

/** A request in the upstream's format, and what the reply side needs to translate back. */
export interface TranslatedRequest<H extends ReplyHints = ReplyHints> {
  body: Json;
  hints: H;
}


/**
 * The output limit a model's context window leaves beside a prompt of about `inputTokens`: the estimate counts about
 * four characters a token, where a model's own tokenizer may count a quarter more. Undefined when the prompt alone
 * may fill the window (the server's refusal then says so, in words the client recovers from).
 */
function outputRoom(window: number, inputTokens: number): number | undefined {
  const room = window - Math.ceil(inputTokens * 1.25);
  return room > 0 ? room : undefined;
}

/**
 * A client request, as the hub reads it (its format's `toHub`), to the upstream's format (SPEC 10, Translation), with
 * what depends on the upstream rather than on either format: the model it knows, the output cap of its config and
 * what the model's context window leaves, reasoning effort only where it accepts it. The hub is the request's own
 * (`ClientRequest.hub`), shared with its token rules and every candidate that translates: it is read, never changed.
 */
export function translateRequest<H extends ReplyHints>(hub: ToHub<H>, upstream: UpstreamSide, stream: boolean, ctx: TranslateContext): TranslatedRequest<H> {
  const { hints } = hub;
  const request = { ...hub.request, model: ctx.upstreamModel };
  if (stream) request.stream = true;
  else delete request.stream;
  const inputTokens = hints.inputTokens ?? estimateHubTokens(request);
  if (request.max_tokens !== undefined) {
    const room = ctx.contextWindow === undefined ? undefined : outputRoom(ctx.contextWindow, inputTokens);
    request.max_tokens = Math.min(request.max_tokens, ctx.maxOutputTokens ?? Infinity, room ?? Infinity);
  }
  if (!ctx.reasoningEffort) delete request.reasoning_effort;
  return { body: upstream.fromHub(request, ctx), hints: Object.assign({}, hints, { inputTokens }) };
}
