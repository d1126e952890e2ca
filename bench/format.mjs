// Number formatting the report's tables share.
/** `n` with `d` decimals; `-` when it was not measured. */
export const f = (n, d = 0) => (n == null || Number.isNaN(n) ? "-" : n.toFixed(d));
/** a / b, NaN when either is missing. */
export const ratio = (a, b) => (a !== undefined && b ? a / b : NaN);
/** A difference with its sign: +0.12, -0.09. */
export const signed = (n, d) => (n >= 0 ? `+${f(n, d)}` : f(n, d));
