/**
 * What an upstream keeps of a team gateway's catalog (SPEC 12, Team upstream): the shapes `team/` reads it into and
 * `Upstream.useCatalog` routes and prices by. Here, below both, so the upstream layer does not import `team/`.
 */

/** One model of a team's catalog. */
export interface CatalogModel {
  id: string;
  /** `models`: only the model list names it; `model_info`: LiteLLM's `/model/info` described it too. */
  source: "models" | "model_info";
  /** `max_input_tokens`: the window a request must fit in. */
  contextWindow?: number | undefined;
  maxOutputTokens?: number | undefined;
  /** US dollars per input and per output token (`input_cost_per_token`, `output_cost_per_token`). */
  inputUsdPerToken?: number | undefined;
  outputUsdPerToken?: number | undefined;
  /** The `supports_*` flags it gave, by their short name (`vision`, `reasoning`, `function_calling`). */
  supports?: string[] | undefined;
}

/** A LiteLLM key's budget (`GET /key/info`: `spend`, `max_budget`, `budget_reset_at`). Never the key it echoes. */
export interface TeamBudget {
  spentUsd: number;
  /** Undefined: the key has no budget of its own. */
  limitUsd?: number | undefined;
  resetsAt?: string | undefined;
  /** When it was read, ISO 8601. */
  readAt: string;
}

/** What the gateway keeps of one team upstream: its models, when they were read, and its budget. */
export interface TeamCatalog {
  upstream: string;
  /** When the catalog was last read from the team gateway, ISO 8601. */
  readAt: string;
  models: CatalogModel[];
  budget?: TeamBudget | undefined;
  /** When a later read failed, ISO 8601: this catalog is then the one kept, in use until a read succeeds. */
  unreadAt?: string | undefined;
}
