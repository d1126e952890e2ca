import type { ModelInfo, ModelPrice } from "@pydantic/genai-prices";
import type { PricedTokens } from "./tokens.js";

/** One model's price as the table resolved it for one UTC day. */
export interface DayPrice {
  /** Whether `time` falls in that day: the table's dated prices start at a UTC midnight, so none changes within it. */
  covers(time: Date): boolean;
  /** The cost of `tokens`, the very number the table computes; undefined when the table has to compute it (not a plain per-token price). */
  cost(tokens: PricedTokens): number | undefined;
}

const DAY_MS = 86_400_000;

/** The price keys of the units the gateway reports, each with the direction the table sums it in. */
const TOKEN_KEYS: Readonly<Record<string, "input" | "output">> = { input_mtok: "input", cache_read_mtok: "input", cache_write_mtok: "input", output_mtok: "output" };
/**
 * Price keys of units the gateway never reports and that no unit it reports is part of (searches, and tokens more
 * specific than its four: audio, images, video, reasoning, an hour's cache write): the table counts 0 of each, which
 * costs 0 and leaves the other counts whole. A per-request fee or a page count is not among them.
 */
const ZERO_COUNT = new Set([
  "web_searches_kcount",
  "storage_searches_kcount",
  "cache_write_1h_mtok",
  "input_audio_mtok",
  "output_audio_mtok",
  "cache_audio_read_mtok",
  "input_image_mtok",
  "output_image_mtok",
  "cache_image_read_mtok",
  "input_video_mtok",
  "output_video_mtok",
  "output_reasoning_mtok",
  "output_citation_mtok",
]);

/** A price per million tokens: one figure, or tiers by the request's whole input (a 200,000-token context's dearer rate). */
type Rate = number | { base: number; tiers: readonly { start: number; price: number }[] };

type Term = { rate: Rate; tokens: (tokens: PricedTokens, uncachedInput: number) => number; output: boolean };

const TOKENS_OF: Readonly<Record<string, Term["tokens"]>> = {
  input_mtok: (_, uncachedInput) => uncachedInput,
  cache_read_mtok: (tokens) => tokens.cacheRead,
  cache_write_mtok: (tokens) => tokens.cacheWrite,
  output_mtok: (tokens) => tokens.output,
};

/**
 * `model`'s price of `time`'s UTC day, from the price `calcPrice` chose for it (`modelPrice`), or undefined when it may
 * change within the day (a time-of-day price, such as DeepSeek's off-peak one) or `time` is no time.
 *
 * A plain price (a number per million tokens, or tiers by the whole input, for input, cache reads and writes and
 * output, and perhaps units the gateway never reports, `ZERO_COUNT`) is computed here the way `@pydantic/genai-prices` computes it
 * (`calcPrice`'s `he`, `_e` and `de` in its `dist/index.js`, 0.1.8: each unit's price times its leaf count over a million, in the
 * price's key order, input and output summed apart, then added): the input leaf is the input less the cache reads
 * and writes that are priced apart, and so the cost is the same number to the last bit
 * (`test/day-price.test.ts` holds it against `calcPrice` for every such model of the table). Any other price (audio
 * or image units the gateway would count, a per-request fee, a page count) is left to the table.
 */
export function dayPriceOf(model: ModelInfo, modelPrice: ModelPrice, time: Date): DayPrice | undefined {
  const day = Math.floor(time.getTime() / DAY_MS);
  if (!Number.isFinite(day)) return undefined;
  if (Array.isArray(model.prices) && model.prices.some((conditional) => conditional.constraint !== undefined && conditional.constraint.type !== "start_date")) return undefined;
  const covers = (at: Date) => Math.floor(at.getTime() / DAY_MS) === day;
  const terms = plainTerms(modelPrice);
  if (!terms) return { covers, cost: () => undefined };
  const readApart = modelPrice.cache_read_mtok !== undefined;
  const writeApart = modelPrice.cache_write_mtok !== undefined;
  return {
    covers,
    cost(tokens) {
      const uncachedInput = tokens.input - (readApart ? tokens.cacheRead : 0) - (writeApart ? tokens.cacheWrite : 0);
      // The table refuses usage whose parts exceed its whole, or a negative count (an upstream's odd report): it says
      // so itself, as it did before a day's price was kept, whatever record came before.
      if (uncachedInput < 0 || tokens.output < 0 || tokens.cacheRead < 0 || tokens.cacheWrite < 0) return undefined;
      let input = 0;
      let output = 0;
      for (const term of terms) {
        const usd = costOf(term.rate, term.tokens(tokens, uncachedInput), tokens.input);
        if (term.output) output += usd;
        else input += usd;
      }
      return input + output;
    },
  };
}

/**
 * `count` tokens at `rate`, in the table's operations and their order (`_e` and `de`): a tiered rate is the last
 * tier the whole input is over, its cost scaled to a million and back.
 */
function costOf(rate: Rate, count: number, input: number): number {
  if (typeof rate === "number") return (rate * count) / 1e6;
  if (count <= 0) return 0;
  let price = rate.base;
  for (const tier of rate.tiers) if (input > tier.start) price = tier.price;
  return (((price * count) / 1e6) * 1e6) / 1e6;
}

/** A tiered price as the table reads it (its tiers by their start), or undefined when it is not one. */
function tieredRate(price: unknown): Rate | undefined {
  if (typeof price !== "object" || price === null) return undefined;
  const { base, tiers } = price as { base?: unknown; tiers?: unknown };
  if (typeof base !== "number" || !Array.isArray(tiers)) return undefined;
  return { base, tiers: [...(tiers as { start: number; price: number }[])].sort((a, b) => a.start - b.start) };
}

/** The terms of a plain price, in its key order; undefined for any other price. */
function plainTerms(modelPrice: ModelPrice): Term[] | undefined {
  const terms: Term[] = [];
  for (const [key, price] of Object.entries(modelPrice)) {
    if (price === undefined || ZERO_COUNT.has(key)) continue;
    const direction = TOKEN_KEYS[key];
    const rate = typeof price === "number" ? price : tieredRate(price);
    if (direction === undefined || rate === undefined) return undefined;
    terms.push({ rate, tokens: TOKENS_OF[key]!, output: direction === "output" });
  }
  return terms;
}
