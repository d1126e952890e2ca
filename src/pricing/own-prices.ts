import type { ModelPrice } from "../config/types.js";
import { createModelTable } from "../routing/model-table.js";
import type { PricedTokens } from "./tokens.js";

/** The user's price of `model` (config `prices`: exact ids before `*` patterns, patterns in file order), or undefined. */
export function ownPrices(prices: Readonly<Record<string, ModelPrice>>): (model: string) => ModelPrice | undefined {
  return createModelTable(Object.entries(prices)).lookup;
}

/** US dollars for `tokens` at `price` (per million tokens); cache tokens cost as input where no cache price is given. */
export function costAt(price: ModelPrice, tokens: PricedTokens): number {
  const uncached = tokens.input - tokens.cacheRead - tokens.cacheWrite;
  return (
    (uncached * price.input + tokens.cacheRead * (price.cacheRead ?? price.input) + tokens.cacheWrite * (price.cacheWrite ?? price.input) + tokens.output * price.output) /
    1_000_000
  );
}
