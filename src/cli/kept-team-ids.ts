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
