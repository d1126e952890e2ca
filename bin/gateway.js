#!/usr/bin/env node
// A status bar runs `gateway statusline` on every refresh: given no option but a port, it skips the command line's
// machinery (docs/ARCHITECTURE.md, What loads when). So does a bare `--version`, which scripts and shell prompts ask:
// package.json's version, as commander would print it, without loading commander or any command (issue 52).
// Anything else, `--help` included, goes through the command line.
const args = process.argv.slice(2);
const [command, ...rest] = args;
if (args.length > 0 && args.every((arg) => arg === "-v" || arg === "--version")) {
  const { readFileSync } = await import("node:fs");
  process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
} else {
  // Node 22.1+ keeps V8's compiled code of the modules it loads in a cache directory (NODE_COMPILE_CACHE, else
  // node-compile-cache in the temporary directory, never the install), so a command's second run skips compiling
  // them: a one-off chat on Node 24 0.87x the CPU (issue 52). It never throws; Node 20 has no such call.
  (await import("node:module")).enableCompileCache?.();
  const statusline = command === "statusline" ? await import("../dist/statusline/main.js") : undefined;
  const fast = statusline?.fastArgs(rest);
  if (statusline && fast) await statusline.statusLineMain(fast.port);
  else (await import("../dist/cli/index.js")).run(process.argv);
}
