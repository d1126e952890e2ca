import type { UpstreamConfig } from "../config/index.js";
import { keptCatalogIds } from "../team/catalog.js";
import { readStoredCatalogs } from "../team/catalog-store.js";
import type { CommandContext } from "./context.js";

/**
 * The team catalogs' model ids as kept in the state directory, each with its team upstream (SPEC 12: routable by exact
 * id), for the commands that ask where a model goes without a running gateway's tables (`routes`, `run claude`).
 */
export function keptTeamIds(ctx: CommandContext): [id: string, upstream: string][] {
  const teams = ctx.config.upstreams.filter((upstream) => upstream.team).map((upstream) => upstream.name);
  return teams.length > 0 ? keptCatalogIds(readStoredCatalogs(ctx.config.stateDir), teams) : [];
}

/**
 * The context window a command that routes without a gateway (`gateway routes`) knows for `model` at `upstream`: the
 * entry's `contextWindow`, else its kept team catalog's (a kind's model list is only read by a running gateway).
 */
export function keptWindowOf(ctx: CommandContext): (upstream: { config: UpstreamConfig }, model: string) => number | undefined {
  const stored = ctx.config.upstreams.some((upstream) => upstream.team) ? readStoredCatalogs(ctx.config.stateDir) : {};
  return ({ config }, model) => config.contextWindow ?? (config.team ? stored[config.name]?.models.find((entry) => entry.id === model)?.contextWindow : undefined);
}
