import type { Provider } from "@pydantic/genai-prices";
import { dayPriceOf, type DayPrice } from "./day-price.js";
import type { PricedTokens } from "./tokens.js";

/** The cost of `tokens` of `model` at `time` from the bundled table, or undefined when the table lacks the model. */
export type TablePrice = (model: string, tokens: PricedTokens, time: Date) => number | undefined;

/**
 * OpenRouter's ids name the vendor (`anthropic/claude-sonnet-4.5`), and the table files them under OpenRouter only;
 * LiteLLM and other gateways use the same ids.
 */
const VENDOR_PREFIXED = /^[\w.-]+\/[^/]/;

/**
 * The offline price table of `@pydantic/genai-prices` (loaded on first use: about 35 ms; it is never updated from
 * the network). A model is looked up once; later requests of it are priced against its own entry only, which is a
 * hundred times quicker than matching every provider again (stats over a large log). Its price of a UTC day is
 * resolved by the table once and kept (`day-price.ts`), so that a record of a plain per-token price only multiplies:
 * `calcPrice` takes 9-15 µs a record, checking the price's units each time (issue 53).
 */
export async function loadPriceTable(): Promise<TablePrice> {
  const { calcPrice } = await import("@pydantic/genai-prices");
  const found = new Map<string, Provider | null>();
  const days = new Map<string, DayPrice>();
  const entryOf = (model: string, time: Date): Provider | null => {
    let entry = found.get(model);
    if (entry === undefined) {
      const probe = { input_tokens: 0, output_tokens: 0 };
      const hit = calcPrice(probe, model, { timestamp: time }) ?? (VENDOR_PREFIXED.test(model) ? calcPrice(probe, model, { providerId: "openrouter", timestamp: time }) : null);
      entry = hit ? { ...hit.provider, models: [hit.model] } : null;
      found.set(model, entry);
    }
    return entry;
  };
  return (model, tokens, time) => {
    const provider = entryOf(model, time);
    if (!provider) return undefined;
    const kept = days.get(model);
    const current = kept?.covers(time) === true;
    const cost = current ? kept!.cost(tokens) : undefined;
    if (cost !== undefined) return cost;
    const usage = { input_tokens: tokens.input, output_tokens: tokens.output, cache_read_tokens: tokens.cacheRead, cache_write_tokens: tokens.cacheWrite };
    const result = calcPrice(usage, model, { provider, timestamp: time });
    if (result && !current) {
      const day = dayPriceOf(result.model, result.model_price, time);
      if (day) days.set(model, day);
      else days.delete(model);
    }
    return result?.total_price;
  };
}
