import * as v from "valibot";
import { frozenMap, fields, mapOf } from "./shapes.js";

const USD = "a number of US dollars per million tokens, 0 or more";
const usd = v.pipe(v.number(USD), v.minValue(0, USD), v.finite(USD));

/** One model's price: what a million tokens of each kind cost (cache tokens cost as input when not given). */
const modelPrice = v.pipe(
  fields(
    { input: usd, output: usd, cacheRead: v.optional(usd), cacheWrite: v.optional(usd) },
    'an object of US dollars per million tokens, e.g. {"input": 0.5, "output": 1.5}',
  ),
  v.transform((price) => Object.freeze({ ...price })),
);

/**
 * `prices` (issue 26, item 18): the user's own models, exact ids or `*` patterns, each with its price. They win over
 * the bundled price table; patterns are tried in file order.
 */
export const modelPrices = v.pipe(
  mapOf(v.string(), modelPrice, 'an object mapping model ids (exact or with *) to prices, e.g. {"qwen*": {"input": 0, "output": 0}}'),
  v.check((prices) => Object.keys(prices).every((model) => model.trim() !== ""), "an object whose keys are non-empty model ids"),
  v.transform(frozenMap),
);
