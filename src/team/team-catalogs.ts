import { UpstreamStatusError } from "../errors/index.js";
import type { Upstream } from "../upstream/upstream.js";
import type { TeamCatalog } from "../upstream/team-catalog.js";
import { noteKeyRefusal, readStoredCatalogs, storeCatalog } from "./catalog-store.js";
import { readTeamCatalog } from "./read-catalog.js";

/** A team upstream's catalog as the gateway uses it: the one just read, or the one kept when reading failed. */
export interface CatalogInUse {
  catalog: TeamCatalog | undefined;
  /** Why the catalog could not be read now (the kept one, if any, is in use); undefined when it was. */
  failure?: string | undefined;
  /** The team gateway refused the key (SPEC 12): its status. */
  keyRefused?: number | undefined;
}

/**
 * Reads each team upstream's catalog (SPEC 12: at start, and on `gateway catalog --refresh`), keeps it in the state
 * directory, and falls back to the one kept there when the team gateway cannot be reached or refuses. A refused key
 * is kept too (`team-key-refusals.json`), for `gateway status`, until a read is accepted.
 */
export async function refreshCatalogs(upstreams: readonly Pick<Upstream, "name" | "config" | "send">[], stateDir: string): Promise<Map<string, CatalogInUse>> {
  const team = upstreams.filter((upstream) => upstream.config.team);
  const stored = team.length ? readStoredCatalogs(stateDir) : {};
  const read = await Promise.all(
    team.map(async (upstream): Promise<[string, CatalogInUse]> => {
      try {
        const catalog = await readTeamCatalog(upstream);
        storeCatalog(stateDir, catalog);
        noteKeyRefusal(stateDir, upstream.name, undefined);
        return [upstream.name, { catalog }];
      } catch (error) {
        const at = new Date().toISOString();
        const kept = stored[upstream.name];
        // The kept catalog says it is no longer the newest (`gateway status`); the failure's words are not kept.
        if (kept) storeCatalog(stateDir, { ...kept, unreadAt: at });
        const keyRefused = error instanceof UpstreamStatusError && error.keyRefused ? error.status : undefined;
        if (keyRefused) noteKeyRefusal(stateDir, upstream.name, { at, status: keyRefused });
        return [upstream.name, { catalog: kept, failure: (error as Error).message, keyRefused }];
      }
    }),
  );
  return new Map(read);
}

/** Makes each team upstream route by the catalog in use (SPEC 12: its models routable by exact id, their windows known). */
export function useCatalogs(upstreams: readonly Pick<Upstream, "name" | "useCatalog">[], read: ReadonlyMap<string, CatalogInUse>): void {
  for (const upstream of upstreams) {
    const catalog = read.get(upstream.name)?.catalog;
    if (catalog) upstream.useCatalog(catalog);
  }
}
