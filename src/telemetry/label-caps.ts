/** A label value that came from a request is cut to this many characters (SPEC 12, Metrics). */
export const MAX_LABEL_LENGTH = 100;
/** Distinct model values kept per metric; later ones count under `other` (SPEC 12, Metrics). */
export const MAX_MODEL_VALUES = 500;
/** What a model past the cap is counted as. */
export const OTHER_MODEL = "other";

/** A request-made value cut to `MAX_LABEL_LENGTH` characters (whole code points: a cut never leaves half a pair). */
export function cutLabel(value: string): string {
  if (value.length <= MAX_LABEL_LENGTH) return value;
  return Array.from(value.slice(0, 2 * MAX_LABEL_LENGTH)).slice(0, MAX_LABEL_LENGTH).join("");
}

/**
 * One value's part of a key that stands for a set of label values: the value with its length before it (label values
 * come from requests and may hold any character, a separator included), `-` for no value.
 */
export const keyPart = (value: string | undefined): string => (value === undefined ? "-" : `${value.length}:${value}`);

/**
 * The model values one metric has seen: the first `MAX_MODEL_VALUES` distinct ones are kept, each later one becomes
 * `other`, so a client that sends a new model id with every request cannot grow a scrape without bound.
 */
export class ModelLabels {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max = MAX_MODEL_VALUES) {
    this.#max = max;
  }

  /** The label value for `model` (cut, or `other` past the cap); `""` when the request named none. */
  label(model: string | undefined): string {
    if (model === undefined) return "";
    const cut = cutLabel(model);
    if (this.#seen.has(cut)) return cut;
    if (this.#seen.size >= this.#max) return OTHER_MODEL;
    this.#seen.add(cut);
    return cut;
  }
}
