// Replaces dist/translate/o200k-tokenizer.js (tsc's one-line re-export) with gpt-tokenizer's o200k_base encoding
// bundled into it, its license kept at the top: the installed package then needs nothing of gpt-tokenizer, whose
// 30 MB are four encodings in three copies each (src, cjs, esm) while the gateway counts with one.
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const file = new URL("../dist/translate/o200k-tokenizer.js", import.meta.url).pathname;
const license = readFileSync(new URL("../node_modules/gpt-tokenizer/LICENSE", import.meta.url), "utf8").trim();
const { version } = JSON.parse(readFileSync(new URL("../node_modules/gpt-tokenizer/package.json", import.meta.url), "utf8"));
await build({
  entryPoints: [file],
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  outfile: file,
  allowOverwrite: true,
  banner: { js: `/*! gpt-tokenizer ${version}, its o200k_base encoding only (https://github.com/niieani/gpt-tokenizer)\n${license}\n*/` },
  logLevel: "warning",
});
