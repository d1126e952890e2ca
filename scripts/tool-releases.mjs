// The npm registry's newest releases for a set of test/tools.json: each tool's `latest` and the newest Node of the
// set's major. Shared by update-tool-pins.mjs (which writes them as the newest set's pins) and canary.mjs (which
// tests them without pinning anything).
import { execFileSync } from "node:child_process";

const view = (spec, ...fields) => JSON.parse(execFileSync("npm", ["view", spec, ...fields, "--json"], { encoding: "utf8" }));
const parts = (version) => version.split(".").map(Number);
const newer = (a, b) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};

/**
 * `set` with its Node and tools raised to the registry's newest: `{ set, changes, warnings }`, where `changes` names
 * each version that moved and `warnings` each tool whose `engines` may not take the set's Node. Asks the registry
 * once per tool and once for Node.
 */
export function newestReleases(set) {
  // `npm view node@24 version` lists every 24.x release; the newest is the pin.
  const major = set.node.split(".")[0];
  const node = [view(`node@${major}`, "version")].flat().reduce((best, v) => (newer(v, best) ? v : best));
  const changes = node === set.node ? [] : [`node ${set.node} -> ${node}`];
  const warnings = [];
  const tools = {};
  for (const pkg of Object.keys(set.tools)) {
    const { version, engines } = view(`${pkg}@latest`, "version", "engines");
    if (version !== set.tools[pkg]) changes.push(`${pkg} ${set.tools[pkg]} -> ${version}`);
    tools[pkg] = version;
    // Tools say `>=22.0.0` and the like; anything else is shown for a person to judge.
    const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines?.node ?? "")?.[1];
    if (engines?.node && (!floor || newer(floor, node))) warnings.push(`${pkg}@${version} wants node ${engines.node}; the set runs ${node}`);
  }
  return { set: { ...set, node, tools }, changes, warnings };
}
