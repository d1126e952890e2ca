import { join } from "node:path";
import { readRegularFile, writePrivateFile } from "../files/private-files.js";
import { parseJsonObject } from "../parse-json.js";
import type { TeamCatalog } from "../upstream/team-catalog.js";

/** The catalogs last read, per upstream name, in the state directory: used when a team gateway cannot be reached. */
export const catalogFile = (stateDir: string): string => join(stateDir, "team-catalogs.json");

/** The team keys refused at the last read of their catalog, per upstream name (SPEC 12: `gateway status` says so). */
export const refusalFile = (stateDir: string): string => join(stateDir, "team-key-refusals.json");

/** A team gateway refused the key when its catalog was read: when, and its status (never its words, which may echo the key). */
export interface KeyRefusal {
  at: string;
  status: number;
}

const readJson = <T>(file: string): Record<string, T> => {
  const text = readRegularFile(file)?.text;
  return (text ? parseJsonObject(text) : undefined) as Record<string, T> | undefined ?? {};
};

/** Every catalog kept, by upstream name; empty when none was ever read. */
export const readStoredCatalogs = (stateDir: string): Record<string, TeamCatalog> => readJson<TeamCatalog>(catalogFile(stateDir));

/** Keeps `catalog` beside the others (written whole, 0600, like every file of the gateway's). */
export function storeCatalog(stateDir: string, catalog: TeamCatalog): void {
  const all = readStoredCatalogs(stateDir);
  all[catalog.upstream] = catalog;
  writePrivateFile(catalogFile(stateDir), `${JSON.stringify(all, null, 2)}\n`);
}

/** Each team upstream whose key its team gateway refused at the last read, by upstream name. */
export const readKeyRefusals = (stateDir: string): Record<string, KeyRefusal> => readJson<KeyRefusal>(refusalFile(stateDir));

/** Notes the last read's refusal of `upstream`'s key, or forgets it (`undefined`: the key was accepted since). */
export function noteKeyRefusal(stateDir: string, upstream: string, refusal: KeyRefusal | undefined): void {
  const all = readKeyRefusals(stateDir);
  if (!refusal && !all[upstream]) return;
  if (refusal) all[upstream] = refusal;
  else delete all[upstream];
  writePrivateFile(refusalFile(stateDir), `${JSON.stringify(all, null, 2)}\n`);
}
