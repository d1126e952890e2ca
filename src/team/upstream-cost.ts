/**
 * The headers a team gateway states a request's own cost in, first found wins (SPEC 12, Team upstream). LiteLLM puts
 * `x-litellm-response-cost` on chat and Responses replies and, where that is None (its messages endpoint),
 * `x-litellm-response-cost-original` (BerriAI/litellm `litellm/proxy/common_request_processing.py`,
 * `get_custom_headers`, which leaves out a header whose value is "None").
 */
const COST_HEADERS = ["x-litellm-response-cost", "x-litellm-response-cost-original"] as const;

/**
 * The cost in US dollars a reply's headers state, rounded to a millionth like every cost; undefined when none says
 * one. Zero counts as unstated: LiteLLM says 0 for a model it has no price for, which is not a free request.
 */
export function upstreamCost(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): number | undefined {
  for (const name of COST_HEADERS) {
    const value = headers?.[name];
    if (typeof value !== "string" || !/^\s*\d+(\.\d+)?(e-?\d+)?\s*$/i.test(value)) continue;
    const usd = Number(value);
    if (Number.isFinite(usd) && usd > 0) return Math.round(usd * 1e6) / 1e6;
  }
  return undefined;
}
