#!/usr/bin/env node
// A status bar runs `gateway statusline` on every refresh: given no option but a port, it skips the command line's
// machinery (docs/ARCHITECTURE.md, What loads when). Anything else, `--help` included, goes through it.
const [command, ...rest] = process.argv.slice(2);
const statusline = command === "statusline" ? await import("../dist/statusline/main.js") : undefined;
const fast = statusline?.fastArgs(rest);
if (statusline && fast) await statusline.statusLineMain(fast.port);
else (await import("../dist/cli/index.js")).run(process.argv);
