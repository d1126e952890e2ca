// Builds the command into dist/: each entry point bundled with the modules it imports, the modules a command loads
// later (`import()`) split into shared chunks, the packages left to node_modules. Node opens a handful of files
// where it opened some 260 of ours (issue "Start only what a command needs"); the source maps point at src/.
// Type errors are the type checker's job (`npm run build` runs it first).
import { build } from "esbuild";
import { rmSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
rmSync(new URL("../dist/", import.meta.url), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // the CLI; the status line's own fast path (bin/gateway.js); the config reader the bench times alone
  entryPoints: ["src/cli/index.ts", "src/statusline/main.ts", "src/config/index.ts"],
  outbase: "src",
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
