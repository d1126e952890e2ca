// Loaded with `node --import` into a child gateway: writes every module it loads to $GATEWAY_TEST_MODULE_LOG, one
// path or URL a line. ES modules through a resolve hook (module.register, Node 20.6+), and CommonJS ones from the
// require cache when the process exits (a hook on Node 20 does not see a require() inside CommonJS code).
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const log = process.env.GATEWAY_TEST_MODULE_LOG;
register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + "\\n");
  return resolved;
}`)}`,
);
process.on("exit", () => appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).join("\n") + "\n"));
