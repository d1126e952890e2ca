#!/usr/bin/env node
// Raises the newest set of test/tools.json to what the npm registry has today: each tool's latest release and the
// newest Node of the set's major, pinned exactly. Run by hand (never in CI), then run .ci/run and commit the pins
// with the README's compatibility table that run wrote. Warns when a tool's `engines` does not take the set's Node.
// (`npm run canary` tests the same releases without pinning them.)
// Usage: node scripts/update-tool-pins.mjs [set]   (default: newest)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { newestReleases } from "./tool-releases.mjs";

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "tools.json");
const pins = JSON.parse(readFileSync(file, "utf8"));
const name = process.argv[2] ?? "newest";
if (!pins.sets[name]) throw new Error(`test/tools.json has no set "${name}"`);

const { set, changes, warnings } = newestReleases(pins.sets[name]);
for (const warning of warnings) console.warn(warning);
pins.sets[name] = set;
writeFileSync(file, `${JSON.stringify(pins, null, 2)}\n`);
console.log(changes.length ? `test/tools.json (${name}): ${changes.join(", ")}` : `test/tools.json (${name}): already the newest`);
