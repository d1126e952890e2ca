import { createModelTable } from "./model-table.js";

/**
 * Model aliases (SPEC section 7): the ids tools ask for, mapped to the ids the upstream catalog knows. Exact keys
 * win over patterns; patterns (`*` = any run of characters) are tried in the order the config lists them.
 */
export interface ModelAliases {
  /** The catalog id for `model`, or undefined when no alias applies. */
  resolve(model: string): string | undefined;
  /** Whether any alias is configured at all: without one, requests pay nothing. */
  readonly any: boolean;
}

export function createModelAliases(models: Readonly<Record<string, string>>): ModelAliases {
  const table = createModelTable(Object.entries(models));
  return { resolve: table.lookup, any: table.any };
}
