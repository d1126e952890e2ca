import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The files of src/ a loaded module of dist/ holds, as its source map names them; none for any other module. */
export function sourcesOf(module: string): string[] {
  const file = module.startsWith("file:") ? fileURLToPath(module) : module;
  if (!/\/dist\/.*\.js$/.test(file)) return [];
  const { sources } = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
  return sources.filter((source) => !source.includes("node_modules/")).map((source) => source.replace(/^(\.\.\/)+/, ""));
}

/**
 * The packages a loaded module holds: its own, under node_modules/, or those a file of dist/ bundles, which its
 * banner names (the build bundles every package but the `dependencies`: scripts/build-cli.mjs, scripts/bundled-licenses.mjs).
 */
export function packagesOf(module: string): string[] {
  const installed = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module)?.[1];
  if (installed) return [installed];
  if (!/\/dist\/.*\.js$/.test(module)) return [];
  const banner = /^\/\*! Bundled packages: (.*)\n/.exec(readFileSync(module.startsWith("file:") ? fileURLToPath(module) : module, "utf8").slice(0, 2_000));
  return banner ? banner[1]!.split(", ").map((named) => named.slice(0, named.lastIndexOf(" "))) : [];
}

/** The packages `modules` hold, each once. */
export const packagesLoaded = (modules: readonly string[]): string[] => [...new Set(modules.flatMap(packagesOf))].sort();
