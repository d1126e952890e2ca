import { countHubTokens } from "../../translate/count-tokens.js";
import { countTokensRequest } from "../../translate/gemini/index.js";
import type { Exchange } from "../exchange.js";
import type { RoutePlan } from "../stages/plan-route.js";
import { sendJson } from "./send-json.js";

/**
 * `count_tokens` or Gemini `:countTokens` on an upstream that does not serve the format (SPEC 10 rule 6): the
 * gateway counts the request as it would be translated, and answers in the client's shape. Always 200: Claude
 * Code's `/context` breaks on an error here, and a missing count only makes Gemini CLI guess.
 */
export async function sendLocalCount(x: Exchange, plan: Extract<RoutePlan, { kind: "count" }>): Promise<void> {
  const gemini = plan.client.format === "gemini";
  const { request } = plan.client.toHub(gemini ? countTokensRequest(plan.body) : plan.body, plan.tctx);
  const tokens = await countHubTokens(request);
  sendJson(x, 200, gemini ? { totalTokens: tokens } : { input_tokens: tokens }, { "x-gateway-upstream": plan.upstream.name });
}
