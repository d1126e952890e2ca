import * as v from "valibot";
import { fields } from "./shapes.js";

const USD = "a number of US dollars, more than 0";
const usd = v.pipe(v.number(USD), v.finite(USD), v.gtValue(0, USD));

/**
 * `budgets` (SPEC 11, Budgets), at the top level for all spending and inside an `upstreams` entry for that upstream:
 * caps in US dollars on the estimated cost of the requests since the start of the local day or month.
 */
export const budgets = v.pipe(
  fields({ daily: v.optional(usd), monthly: v.optional(usd) }, 'an object with a daily and/or monthly cap in US dollars, e.g. {"daily": 5, "monthly": 50}'),
  v.transform((caps) => Object.freeze({ ...caps })),
);
