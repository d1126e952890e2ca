// What a request costs (issue 26, item 18): `stats`, `logs --json` and the dashboard price requests one way.

// The pricer: load it once, price each record.
export { createPricer, loadPricer, NO_PRICES, type Cost, type Pricer, type PricingConfig } from "./pricer.js";

// The pieces, for tests and for a caller with its own table.
export { loadPriceTable, type TablePrice } from "./price-table.js";
export { costAt, ownPrices } from "./own-prices.js";
export { pricedTokens, type PricedTokens } from "./tokens.js";
