import { parseJsonObject } from "../parse-json.js";
import { formatUsd } from "../request-log/format.js";
import type { CatalogModel, TeamBudget, TeamCatalog } from "../upstream/team-catalog.js";

/**
 * A team gateway's catalog (SPEC 12, Team upstream): each model its `GET /v1/models` lists, with what LiteLLM's
 * `GET /model/info` says of it (`model_info`: BerriAI/litellm `litellm/proxy/proxy_server.py`, `model_info_v1`;
 * the field names of its `model_prices_and_context_window.json`). Pure: what was read in, what the gateway keeps out.
 */

const SUPPORTS = ["vision", "reasoning", "function_calling"] as const;
const positive = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined);
const nonNegative = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);
const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null) : []);

/** The ids of an OpenAI-shaped model list (`{"data": [{"id": ...}]}`), in its order, each once. */
export function listedIds(text: string): string[] {
  const ids = records(parseJsonObject(text)?.data).map((model) => model.id).filter((id): id is string => typeof id === "string" && id !== "");
  return [...new Set(ids)];
}

/** What `/model/info` says of each model name (its first deployment's `model_info`: a name may have several). */
export function modelInfo(text: string): Map<string, Omit<CatalogModel, "id" | "source">> {
  const described = new Map<string, Omit<CatalogModel, "id" | "source">>();
  for (const entry of records(parseJsonObject(text)?.data)) {
    const name = entry.model_name;
    const info = entry.model_info;
    if (typeof name !== "string" || described.has(name) || typeof info !== "object" || info === null) continue;
    const fields = info as Record<string, unknown>;
    const supports = SUPPORTS.filter((flag) => fields[`supports_${flag}`] === true);
    described.set(name, {
      contextWindow: positive(fields.max_input_tokens),
      maxOutputTokens: positive(fields.max_output_tokens),
      inputUsdPerToken: nonNegative(fields.input_cost_per_token),
      outputUsdPerToken: nonNegative(fields.output_cost_per_token),
      supports: supports.length ? [...supports] : undefined,
    });
  }
  return described;
}

/** The catalog's models: every id the list gives, described where `/model/info` describes it. */
export function catalogModels(listText: string, infoText: string | undefined): CatalogModel[] {
  const info = infoText === undefined ? new Map() : modelInfo(infoText);
  return listedIds(listText).map((id) => {
    const described = info.get(id);
    return described ? { id, source: "model_info", ...described } : { id, source: "models" };
  });
}

/** The budget of a `/key/info` answer (`{"key": ..., "info": {spend, max_budget, budget_reset_at}}`); the key is never kept. */
export function teamBudget(text: string, readAt: string): TeamBudget | undefined {
  const info = parseJsonObject(text)?.info;
  if (typeof info !== "object" || info === null) return undefined;
  const fields = info as Record<string, unknown>;
  const spentUsd = nonNegative(fields.spend);
  if (spentUsd === undefined) return undefined;
  return { spentUsd, limitUsd: positive(fields.max_budget), resetsAt: typeof fields.budget_reset_at === "string" ? fields.budget_reset_at : undefined, readAt };
}

/** The team budget as `status` and the status line word it: `team $12.30 of $50.00`; undefined without one. */
export const budgetWords = (catalog: Pick<TeamCatalog, "budget">): string | undefined =>
  catalog.budget ? `team ${formatUsd(catalog.budget.spentUsd)}${catalog.budget.limitUsd === undefined ? "" : ` of ${formatUsd(catalog.budget.limitUsd)}`}` : undefined;

/** A team budget as a `stats --json` budgets entry (SPEC 12): scope the upstream's name, period `team`. */
export interface TeamBudgetEntry {
  scope: string;
  period: "team";
  limitUsd: number | null;
  spentUsd: number;
  resetsAt: string | null;
  readAt: string;
}

/** The budget entries of the team catalogs kept (only those whose team gateway told a budget). */
export const teamBudgetEntries = (catalogs: Readonly<Record<string, TeamCatalog>>): TeamBudgetEntry[] =>
  Object.values(catalogs).flatMap(({ upstream, budget }) =>
    budget ? [{ scope: upstream, period: "team" as const, limitUsd: budget.limitUsd ?? null, spentUsd: budget.spentUsd, resetsAt: budget.resetsAt ?? null, readAt: budget.readAt }] : [],
  );

/**
 * The model ids of the kept catalogs of the team upstreams named (in config order), each with its upstream: what the
 * router routes to each by exact id, for the commands that ask where a model goes without a gateway's own tables.
 */
export const keptCatalogIds = (catalogs: Readonly<Record<string, TeamCatalog>>, teams: readonly string[]): [id: string, upstream: string][] =>
  teams.flatMap((name) => (catalogs[name]?.models ?? []).map((model): [string, string] => [model.id, name]));
