import { join } from "node:path";
import { readRegularFile, writePrivateFile } from "../files/private-files.js";
import { parseJsonObject } from "../parse-json.js";
import type { TeamCatalog } from "./catalog.js";

/** The catalogs last read, per upstream name, in the state directory: used when a team gateway cannot be reached. */
export const catalogFile = (stateDir: string): string => join(stateDir, "team-catalogs.json");

/** Every catalog kept, by upstream name; empty when none was ever read. */
export function readStoredCatalogs(stateDir: string): Record<string, TeamCatalog> {
  const text = readRegularFile(catalogFile(stateDir))?.text;
  return (text ? parseJsonObject(text) : undefined) as Record<string, TeamCatalog> | undefined ?? {};
}

/** Keeps `catalog` beside the others (written whole, 0600, like every file of the gateway's). */
export function storeCatalog(stateDir: string, catalog: TeamCatalog): void {
  const all = readStoredCatalogs(stateDir);
  all[catalog.upstream] = catalog;
  writePrivateFile(catalogFile(stateDir), `${JSON.stringify(all, null, 2)}\n`);
}
