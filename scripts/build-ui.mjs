// Builds the dashboard page into dist/ui/: the page's TypeScript and uPlot bundled into one script, its styles
// and uPlot's into one stylesheet, and the HTML. Nothing is loaded from a CDN at run time.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const out = new URL("../dist/ui/", import.meta.url);
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [new URL("../ui/src/main.ts", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  outfile: new URL("app.js", out).pathname,
  logLevel: "warning",
});
await build({
  stdin: {
    contents: '@import "uplot/dist/uPlot.min.css";\n@import "./app.css";',
    resolveDir: new URL("../ui/src/", import.meta.url).pathname,
    loader: "css",
  },
  bundle: true,
  minify: true,
  outfile: new URL("app.css", out).pathname,
  logLevel: "warning",
});
copyFileSync(new URL("../ui/index.html", import.meta.url), new URL("index.html", out));
