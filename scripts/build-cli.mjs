// Builds the command into dist/: each entry point bundled with the modules it imports, the modules a command loads
// later (`import()`) split into shared chunks. The packages the source imports are bundled in too, each under its
// license (`bundled-licenses.mjs`), and so are dev dependencies: only `dependencies` stay in node_modules, the ones
// that cannot be bundled (`@napi-rs/keyring`'s native binary, `open`'s own xdg-open script beside its code) and
// jsonc-parser, which the config reader requires synchronously only to describe a syntax error (bundled, its 46 KB
// would load with every command: `config/json-syntax.ts`). Why:
// - Start-up (issue "Start only what a command needs"): Node's ES module loader pays for every file it resolves and
//   every package.json it reads. Bundled, a cold `gateway env` or `status` takes 0.93x the time, a one-off chat
//   0.82x the CPU (paired runs, Node 20), and undici's dispatchers, imported from its own `lib/` files (it has no
//   `exports` map), are fixed at build time instead of moving under a user's fresh install.
// - Install size: gpt-tokenizer's one encoding the gateway counts with (o200k_base, 2.6 MB) becomes
//   dist/translate/o200k-tokenizer.js, so the package needs nothing of gpt-tokenizer's 30 MB (four encodings in three
//   copies each); the OpenTelemetry SDK and its exporters, and prom-client, become the chunks `telemetry/` imports
//   only when an OTLP endpoint is set or `/metrics` is scraped, instead of some 60 MB of packages every install carried
//   for a feature most never turn on.
// The source maps point at src/. Type errors are the type checker's job (`npm run build` runs it first).
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { addLicenseBanners } from "./bundled-licenses.mjs";
import { prependToOutput } from "./prepend-to-output.mjs";

const root = new URL("..", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
const { metafile } = await build({
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
  // A bundled package's ES build where it ships one (the OpenTelemetry packages name it in "module" and have no
  // "exports"): imported from a CommonJS build, a chunk would export only `default`, not the names the source imports.
  mainFields: ["module", "main"],
  target: "node20",
  external: Object.keys(pkg.dependencies).flatMap((name) => [name, `${name}/*`]),
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
});
// A CommonJS package bundled in (prom-client, parts of the OpenTelemetry SDK) requires Node's modules through
// esbuild's `__require`, which calls the `require` it finds in its module's scope: an ES module has one only when
// given one. Only the chunk that defines the shim gets it, so no other file (the tokenizer's) imports anything.
const REQUIRE = 'import { createRequire as __gatewayCreateRequire } from "node:module";\nconst require = __gatewayCreateRequire(import.meta.url);\n';
for (const output of Object.keys(metafile.outputs)) {
  if (output.endsWith(".js") && readFileSync(join(root, output), "utf8").includes("var __require = ")) prependToOutput(join(root, output), REQUIRE);
}
addLicenseBanners(root, metafile);
