import type { ModelPrice } from "../config/types.js";
import type { TeamCatalog } from "../upstream/team-catalog.js";

/** A model's price from its upstream's team catalog (SPEC 12), per million tokens as config `prices` gives them. */
export type CatalogPrice = (upstream: string, model: string) => ModelPrice | undefined;

/** The prices of the catalogs kept: a model the team prices (both directions) is priced as the team prices it. */
export function catalogPrices(catalogs: Readonly<Record<string, TeamCatalog>>): CatalogPrice {
  const prices = new Map<string, ModelPrice>();
  for (const catalog of Object.values(catalogs)) {
    for (const model of catalog.models) {
      if (model.inputUsdPerToken === undefined || model.outputUsdPerToken === undefined) continue;
      prices.set(`${catalog.upstream}\n${model.id}`, { input: model.inputUsdPerToken * 1e6, output: model.outputUsdPerToken * 1e6 });
    }
  }
  return (upstream, model) => prices.get(`${upstream}\n${model}`);
}
