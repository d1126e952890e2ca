#!/usr/bin/env node
// Raises the newest set of test/tools.json to what the npm registry has today: each tool's latest release and the
// newest Node of the set's major, pinned exactly. Run by hand (never in CI), then run .ci/run and commit the pins
// with the README's compatibility table that run wrote. Warns when a tool's `engines` does not take the set's Node.
// Usage: node scripts/update-tool-pins.mjs [set]   (default: newest)
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "tools.json");
const pins = JSON.parse(readFileSync(file, "utf8"));
const name = process.argv[2] ?? "newest";
const set = pins.sets[name];
if (!set) throw new Error(`test/tools.json has no set "${name}"`);

const view = (spec, ...fields) => JSON.parse(execFileSync("npm", ["view", spec, ...fields, "--json"], { encoding: "utf8" }));
const parts = (version) => version.split(".").map(Number);
const newer = (a, b) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};

// `npm view node@24 version` lists every 24.x release; the newest is the pin.
const major = set.node.split(".")[0];
const nodeVersions = [view(`node@${major}`, "version")].flat();
const node = nodeVersions.reduce((best, v) => (newer(v, best) ? v : best));
const changes = [];
if (node !== set.node) changes.push(`node ${set.node} -> ${node}`);
set.node = node;

for (const pkg of Object.keys(set.tools)) {
  const { version, engines } = view(`${pkg}@latest`, "version", "engines");
  if (version !== set.tools[pkg]) changes.push(`${pkg} ${set.tools[pkg]} -> ${version}`);
  set.tools[pkg] = version;
  // Tools say `>=22.0.0` and the like; anything else is shown for a person to judge.
  const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines?.node ?? "")?.[1];
  if (engines?.node && (!floor || newer(floor, node))) console.warn(`${pkg}@${version} wants node ${engines.node}; the set runs ${node}`);
}

writeFileSync(file, `${JSON.stringify(pins, null, 2)}\n`);
console.log(changes.length ? `test/tools.json (${name}): ${changes.join(", ")}` : `test/tools.json (${name}): already the newest`);
