import * as v from "valibot";
import { frozenMap, mapOf } from "./shapes.js";

const ALIASES = 'an object mapping model ids to catalog ids, e.g. {"gpt-4o": "openai/gpt-4o"}';
const TARGET = "a non-empty catalog model id (no *)";

/**
 * Model aliases (SPEC section 7): the id a tool sends (exact, or with `*`) → the id the catalog knows (exact).
 * Kept in file order: patterns are tried in that order.
 */
export const modelAliases = v.pipe(
  mapOf(
    v.string(),
    v.pipe(
      v.string(TARGET),
      v.trim(),
      v.nonEmpty(TARGET),
      v.check((target) => !target.includes("*"), TARGET),
    ),
    ALIASES,
  ),
  v.check((aliases) => Object.keys(aliases).every((alias) => alias.trim() !== ""), "an object whose keys are non-empty model ids"),
  v.transform(frozenMap),
);
