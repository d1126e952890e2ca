import type { Provider } from "@pydantic/genai-prices";
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
 * hundred times quicker than matching every provider again (stats over a large log).
 */
export async function loadPriceTable(): Promise<TablePrice> {
  const { calcPrice } = await import("@pydantic/genai-prices");
  const found = new Map<string, Provider | null>();
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
    const usage = { input_tokens: tokens.input, output_tokens: tokens.output, cache_read_tokens: tokens.cacheRead, cache_write_tokens: tokens.cacheWrite };
    return calcPrice(usage, model, { provider, timestamp: time })?.total_price;
  };
}
