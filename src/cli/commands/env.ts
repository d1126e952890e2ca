import { Option, type Command } from "commander";
import { createContext, portFlag } from "../context.js";
import { chooseGateway, notYours, portArg } from "../running-gateway.js";
import { log, print } from "../terminal.js";
import { quote, toolEnv } from "../tool-env.js";

const SHELLS = ["sh", "bash", "zsh", "fish", "powershell"] as const;
type Shell = (typeof SHELLS)[number];

const psQuote = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** One shell's syntax for setting exported variables; bash and zsh read what sh reads. */
export function renderEnv(vars: Record<string, string>, shell: Shell): string {
  const lines = Object.entries(vars).map(([name, value]) => {
    if (shell === "fish") return `set -gx ${name} ${quote(value)};`;
    if (shell === "powershell") return `$env:${name} = ${psQuote(value)}`;
    return `export ${name}=${quote(value)}`;
  });
  return `${lines.join("\n")}\n`;
}

export function registerEnv(program: Command): void {
  program
    .command("env")
    .description("print the variables tools need (the only command that prints the local key)")
    .option("-p, --port <n>", "the gateway on this port (default: the running one, else the configured port)")
    .addOption(new Option("--shell <shell>", "the shell to print for").choices(SHELLS).default("sh"))
    .option("--json", "print a JSON object instead")
    .addHelpText("after", '\nExamples:\n  eval "$(gateway env)"\n  gateway env --shell fish | source\n  gateway env --shell powershell | Invoke-Expression')
    .action(async (options: { port?: string; shell: Shell; json?: boolean }) => {
      const ctx = createContext();
      const flag = portFlag(options.port);
      const running = await chooseGateway(ctx, flag);
      const vars = toolEnv(ctx, running.port);
      print(options.json ? JSON.stringify(vars, null, 2) : renderEnv(vars, options.shell));
      // The variables are printed either way (a shell profile evaluates them before any gateway runs); stderr says
      // when tools would find nothing there, or someone else's gateway.
      if (running.owner === "other") {
        const problem = await notYours(ctx, running.port);
        log.warn(problem.message);
        log.info(problem.hint!);
      } else if (!running.health && flag !== undefined) {
        log.warn(`No gateway is running on port ${running.port}: tools pointed there find nothing until you run \`gateway start${portArg(flag)}\`.`);
      }
    });
}
