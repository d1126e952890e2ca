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
  const statusline = command === "statusline" ? await import("../dist/statusline/main.js") : undefined;
  const fast = statusline?.fastArgs(rest);
  if (statusline && fast) await statusline.statusLineMain(fast.port);
  else (await import("../dist/cli/index.js")).run(process.argv);
}
