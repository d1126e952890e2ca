/**
 * Model aliases (SPEC section 7): the ids tools ask for, mapped to the ids the upstream catalog knows. Exact keys
 * win over patterns; patterns (`*` = any run of characters) are tried in the order the config lists them.
 */
export interface ModelAliases {
  /** The catalog id for `model`, or undefined when no alias applies. */
  resolve(model: string): string | undefined;
  /** The exact (non-pattern) alias ids, listed as entries of their own in model lists. */
  readonly exact: readonly string[];
  /** Whether any alias is configured at all: without one, requests pay nothing. */
  readonly any: boolean;
}

const escapeRegExp = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** `claude-sonnet-4-5*` as an anchored regular expression. */
const patternOf = (key: string): RegExp => new RegExp(`^${key.split("*").map(escapeRegExp).join(".*")}$`, "s");

export function createModelAliases(models: Readonly<Record<string, string>>): ModelAliases {
  const exact = new Map<string, string>();
  const patterns: [RegExp, string][] = [];
  for (const [key, target] of Object.entries(models)) {
    if (key.includes("*")) patterns.push([patternOf(key), target]);
    else exact.set(key, target);
  }
  return {
    resolve(model) {
      const direct = exact.get(model);
      if (direct !== undefined) return direct;
      for (const [pattern, target] of patterns) if (pattern.test(model)) return target;
      return undefined;
    },
    exact: [...exact.keys()],
    any: exact.size + patterns.length > 0,
  };
}
