// Each file of dist/ that holds a bundled package's code opens with that package's name, version and license text
// (its LICENSE file as the package ships it), so the licenses travel with the code as they require. The packages are
// read from esbuild's metafile: the inputs of each output under node_modules/. Packages with the same license text
// share one copy of it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { prependToOutput } from "./prepend-to-output.mjs";

/** The package directory of a bundled input (`node_modules/@scope/name/...`, nested ones included), or undefined. */
function packageDirOf(input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

/** A package's name, version and license text. */
function licenseOf(root, dir) {
  const { name, version, license } = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  const file = readdirSync(join(root, dir)).find((entry) => /^licen[cs]e(-[a-z]+)?(\.(md|txt))?$/i.test(entry));
  if (!file) throw new Error(`${name} is bundled into dist/ but ships no LICENSE file to bundle with it`);
  return { name, version, license, text: readFileSync(join(root, dir, file), "utf8").trim() };
}

/** The banner comment: the packages, and under each distinct license text, the packages it covers. */
function banner(packages) {
  const byText = new Map();
  for (const p of packages) byText.set(p.text, [...(byText.get(p.text) ?? []), p]);
  const sections = [...byText].map(([text, covered]) => `${covered.map((p) => `${p.name} ${p.version} (${p.license})`).join(", ")}:\n\n${text.replaceAll("*/", "* /")}`);
  return `/*! Bundled packages: ${packages.map((p) => `${p.name} ${p.version}`).join(", ")}\n\n${sections.join("\n\n")}\n*/\n`;
}

/** Opens each output of `metafile` that bundles packages with their licenses. */
export function addLicenseBanners(root, metafile) {
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (!output.endsWith(".js")) continue;
    const dirs = [...new Set(Object.keys(inputs).map(packageDirOf).filter(Boolean))].sort();
    if (dirs.length === 0) continue;
    const packages = dirs.map((dir) => licenseOf(root, dir));
    const unique = [...new Map(packages.map((p) => [`${p.name}@${p.version}`, p])).values()];
    prependToOutput(join(root, output), banner(unique));
  }
}
