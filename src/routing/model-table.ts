import { globRegExp, isPattern } from "../glob.js";

/** Model ids, exact or with `*`, each mapped to a value; what aliases and routing both look models up in. */
export interface ModelTable<T> {
  /** The value of the first exact key equal to `model`, else of the first pattern that matches it (in the order given), else undefined. */
  lookup(model: string): T | undefined;
  /** Whether the table holds any key: a request then pays nothing. */
  readonly any: boolean;
}

/**
 * The one model matcher: an exact id is found in a hash map (O(1) however many entries), then patterns are tried
 * in order. For a key given twice the first one wins, as in a config file read top to bottom.
 */
export function createModelTable<T>(entries: Iterable<readonly [key: string, value: T]>): ModelTable<T> {
  const exact = new Map<string, T>();
  const patterns: [RegExp, T][] = [];
  for (const [key, value] of entries) {
    if (isPattern(key)) patterns.push([globRegExp(key), value]);
    else if (!exact.has(key)) exact.set(key, value);
  }
  return {
    lookup(model) {
      const direct = exact.get(model);
      if (direct !== undefined) return direct;
      for (const [pattern, value] of patterns) if (pattern.test(model)) return value;
      return undefined;
    },
    any: exact.size + patterns.length > 0,
  };
}
