/**
 * A cost in whole millionths of a dollar: how spend is summed and compared (SPEC 11, Budgets), the figure `stats`
 * shows. Each request's cost is already rounded to a millionth; as integers, ten $0.10 requests are exactly $1.00,
 * where adding 0.1 ten times gives 0.9999999999999999 and a $1.00 budget would let the eleventh through.
 */
export const toMicros = (usd: number): number => Math.round(usd * 1e6);
