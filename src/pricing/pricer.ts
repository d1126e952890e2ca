import { ECHO_UPSTREAM, type GatewayConfig } from "../config/types.js";
import type { RequestRecord } from "../request-log/record.js";
import { catalogPrices, type CatalogPrice } from "../team/catalog-prices.js";
import { readStoredCatalogs } from "../team/catalog-store.js";
import { costAt, ownPrices } from "./own-prices.js";
import { loadPriceTable, type TablePrice } from "./price-table.js";
import { pricedTokens } from "./tokens.js";

/**
 * A request's estimated cost in US dollars; `null` when its model has no known price ("unknown", never 0);
 * `undefined` when there is nothing to price (the reply reported no tokens: a refused request, an error).
 */
export type Cost = number | null | undefined;

/** Prices one request. */
export type Pricer = (record: RequestRecord) => Cost;

/**
 * What a pricer reads from the config: the user's `prices`, and (for records of gateways before issue 37, which do
 * not say whether echo served them) which upstream names the config gives the free built-in echo.
 */
export type PricingConfig = Pick<GatewayConfig, "prices" | "upstreams"> & Partial<Pick<GatewayConfig, "stateDir">>;

/** A pricer that knows no price: every request that reported tokens is "unknown". */
export const NO_PRICES: Pricer = (record) => (pricedTokens(record) ? null : undefined);

/**
 * The one way a request is priced (issue 26, item 18): an alias as its target (`target ?? model`); the user's
 * `prices` first, then the bundled table; the built-in echo upstream costs nothing. Each record is priced from what
 * it says served it (issue 37, item 12): the config when `stats` runs may name other upstreams than the gateway that
 * served it had (`--upstream`, `GATEWAY_UPSTREAM`). A local server (`ollama`, `vllm`, `llamacpp`, `lmstudio`) costs nothing
 * unless `prices` names the model. A team catalog's price (SPEC 12) comes after the user's, before the table. A cost the upstream stated in its reply (`upstreamCostUsd`, SPEC 12) is used as it is.
 * Costs are per request, rounded to a millionth of a dollar.
 */
export function createPricer(config: PricingConfig, table: TablePrice, catalog?: CatalogPrice): Pricer {
  const own = ownPrices(config.prices);
  const echoNames = new Set(config.upstreams.filter((upstream) => upstream.url === ECHO_UPSTREAM).map((upstream) => upstream.name));
  return (record) => {
    // The upstream's own figure (a team gateway's, SPEC 12) wins over any estimate.
    if (record.costSource === "upstream" && record.upstreamCostUsd !== undefined) return record.upstreamCostUsd;
    const tokens = pricedTokens(record);
    if (!tokens) return undefined;
    // An older record does not say: the config's upstream of its name is the best guess left, as it always was.
    if (record.echo ?? (record.upstream !== undefined && echoNames.has(record.upstream))) return 0;
    const model = record.target ?? record.model;
    // The user's prices, then the team catalog's for a model its team upstream served (SPEC 12), then the table.
    const price = model === undefined ? undefined : (own(model) ?? (record.upstream === undefined ? undefined : catalog?.(record.upstream, model)));
    // A local server's model costs what the user's prices say, else nothing (SPEC 11, Budgets).
    if (record.local) return price ? Math.round(costAt(price, tokens) * 1e6) / 1e6 : 0;
    if (model === undefined) return null;
    const usd = price ? costAt(price, tokens) : table(model, tokens, new Date(record.time));
    return usd === undefined ? null : Math.round(usd * 1e6) / 1e6;
  };
}

/** `createPricer` with the bundled table, which loads here (about 35 ms): call it once, when costs are first needed. */
export async function loadPricer(config: PricingConfig): Promise<Pricer> {
  const team = config.stateDir !== undefined && config.upstreams.some((upstream) => upstream.team);
  return createPricer(config, await loadPriceTable(), team ? catalogPrices(readStoredCatalogs(config.stateDir!)) : undefined);
}
