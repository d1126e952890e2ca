// Builds the command into dist/: each entry point bundled with the modules it imports, the modules a command loads
// later (`import()`) split into shared chunks. The runtime dependencies stay in node_modules; a dev dependency the
// source imports is bundled in: gpt-tokenizer's one encoding the gateway counts with (o200k_base, 2.6 MB) becomes
// dist/translate/o200k-tokenizer.js, under its license, so the package needs nothing of gpt-tokenizer's 30 MB (four
// encodings in three copies each). Node opens a handful of files where it opened some 260 of ours (issue "Start only
// what a command needs"); the source maps point at src/. Type errors are the type checker's job (`npm run build`
// runs it first).
import { build } from "esbuild";
import { readFileSync, rmSync, writeFileSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // the CLI; the status line's own fast path (bin/gateway.js); the config reader the bench times alone; the tokenizer,
  // its own file so that its license stands at its top
  entryPoints: ["src/cli/index.ts", "src/statusline/main.ts", "src/config/index.ts", "src/translate/o200k-tokenizer.ts"],
  outbase: "src",
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: Object.keys(pkg.dependencies).flatMap((name) => [name, `${name}/*`]),
  sourcemap: true,
  logLevel: "warning",
});

const tokenizer = new URL("../dist/translate/o200k-tokenizer.js", import.meta.url);
const license = readFileSync(new URL("../node_modules/gpt-tokenizer/LICENSE", import.meta.url), "utf8").trim();
const { version } = JSON.parse(readFileSync(new URL("../node_modules/gpt-tokenizer/package.json", import.meta.url), "utf8"));
writeFileSync(tokenizer, `/*! gpt-tokenizer ${version}, its o200k_base encoding only (https://github.com/niieani/gpt-tokenizer)\n${license}\n*/\n${readFileSync(tokenizer, "utf8")}`);
