// Installs a set of tools for the tool tests (a set of test/tools.json, or the canary's): its Node (the machine's
// when it is that version, else the npm registry's `node` package, whose platform package holds the binary) and its
// tools, in a directory of its own. Nothing comes from outside the npm registry. Used by test-tools.mjs (CI's sets)
// and canary.mjs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

const cache = join(homedir(), ".cache");

/** Whether `version` (v20.19.2) is what `wanted` names: a major ("20") or an exact version ("24.21.0"). */
const fits = (version, wanted) => (wanted.includes(".") ? version === `v${wanted}` : version.startsWith(`v${wanted}.`));

/** Runs npm quietly into `prefix`, its output on stderr so that stdout holds only what the caller prints. */
function npmInstall(prefix, specs) {
  mkdirSync(prefix, { recursive: true });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix", prefix, ...specs], { stdio: ["ignore", 2, 2] });
}

/** The folder of the set's Node binary, installed from the registry when this Node is not it. */
export function nodeBinOf(set) {
  if (fits(process.version, set.node)) return dirname(process.execPath);
  const prefix = join(cache, `gateway-test-node-${set.node}`);
  const bin = join(prefix, "node_modules", ".bin");
  const installed = () => existsSync(join(bin, "node")) && fits(execFileSync(join(bin, "node"), ["--version"]).toString().trim(), set.node);
  if (!installed()) npmInstall(prefix, [`node@${set.node}`]);
  if (!installed()) throw new Error(`npm installed node@${set.node} into ${prefix}, but its node/bin/node is not that Node`);
  return bin;
}

/** The set's tools in `dir` (by default `~/.cache/gateway-test-tools-<name>`), installed unless every one is there already. */
export function toolsDirOf(name, set, dir = join(cache, `gateway-test-tools-${name}`)) {
  const version = (pkg) => {
    const file = join(dir, "node_modules", pkg, "package.json");
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined;
  };
  const specs = Object.entries(set.tools);
  if (specs.some(([pkg, wanted]) => version(pkg) !== wanted)) npmInstall(dir, specs.map(([pkg, wanted]) => `${pkg}@${wanted}`));
  return dir;
}
