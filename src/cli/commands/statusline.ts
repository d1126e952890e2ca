import type { Command } from "commander";
import { statusLineMain } from "../../statusline/main.js";
import { portFlag } from "../context.js";

export function registerStatusline(program: Command): void {
  program
    .command("statusline")
    .description("print one line for a tool's status bar: the gateway, where the session's last request went, today's and the session's spend")
    .option("-p, --port <n>", "the gateway on this port (default: the running one, else the configured port)")
    .addHelpText(
      "after",
      '\nReads Claude Code\'s statusLine JSON on standard input (its session_id ties the line to the session) and always exits 0.\n`gateway run claude` sets it as Claude Code\'s status line unless your settings have one.\n\nExample (~/.claude/settings.json):\n  "statusLine": {"type": "command", "command": "gateway statusline"}',
    )
    .action(async (options: { port?: string }) => statusLineMain(portFlag(options.port)));
}
