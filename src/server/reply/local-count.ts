import { countHubTokens } from "../../translate/count-tokens.js";
import type { Exchange } from "../exchange.js";
import type { RoutePlan } from "../stages/plan-route.js";
import { sendJson } from "./send-json.js";

/**
 * `count_tokens` or Gemini `:countTokens` on an upstream that does not serve the format (SPEC 10 rule 6): the
 * gateway counts the request as it would be translated, and answers in the client's shape. Always 200: Claude
 * Code's `/context` breaks on an error here, and a missing count only makes Gemini CLI guess.
 */
export async function sendLocalCount(x: Exchange, plan: Extract<RoutePlan, { kind: "count" }>): Promise<void> {
  const count = plan.from.count!;
  const { request } = plan.from.client.toHub(count.request(plan.body), plan.tctx);
  sendJson(x, 200, count.reply(await countHubTokens(request)), { "x-gateway-upstream": plan.upstream.name });
}
