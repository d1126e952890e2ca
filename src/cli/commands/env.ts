import type { Command } from "commander";
import { readEnvSecrets } from "../../config/index.js";
import { CliError } from "../../errors.js";
import { loadLocalKey } from "../../local-key/local-key.js";
import { createContext, localUrls } from "../context.js";
import { print } from "../terminal.js";

type Shell = "sh" | "fish" | "powershell";
const SHELLS: readonly Shell[] = ["sh", "fish", "powershell"];

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
const psQuote = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** One shell's syntax for setting exported variables. */
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
    .option("--shell <shell>", "sh, fish or powershell", "sh")
    .option("--json", "print a JSON object instead")
    .addHelpText("after", '\nExample:\n  eval "$(gateway env)"\n  gateway env --shell fish | source\n  gateway env --shell powershell | Invoke-Expression')
    .action((options: { shell: string; json?: boolean }) => {
      if (!SHELLS.includes(options.shell as Shell)) {
        throw new CliError(`Unknown shell "${options.shell}".`, { hint: "Use --shell sh, fish or powershell.", exitCode: 2 });
      }
      const ctx = createContext();
      const key = loadLocalKey(ctx.config.configDir, readEnvSecrets(ctx.env).localKey);
      const urls = localUrls(ctx.config.port);
      const vars = { OPENAI_BASE_URL: urls.openai, OPENAI_API_KEY: key, ANTHROPIC_BASE_URL: urls.root, ANTHROPIC_API_KEY: key };
      print(options.json ? JSON.stringify(vars, null, 2) : renderEnv(vars, options.shell as Shell));
    });
}
