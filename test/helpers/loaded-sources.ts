import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The files of src/ a loaded module of dist/ holds, as its source map names them; none for any other module. */
export function sourcesOf(module: string): string[] {
  const file = module.startsWith("file:") ? fileURLToPath(module) : module;
  if (!/\/dist\/.*\.js$/.test(file)) return [];
  const { sources } = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
  return sources.filter((source) => !source.includes("node_modules/")).map((source) => source.replace(/^(\.\.\/)+/, ""));
}
