import { Command } from "commander";
import { VERSION } from "../version.js";
import { registerStart } from "./commands/start.js";
import { registerStop } from "./commands/stop.js";
import { registerRun } from "./commands/run.js";
import { registerLogin } from "./commands/login.js";
import { registerLogout } from "./commands/logout.js";
import { registerEnv } from "./commands/env.js";
import { registerStatus } from "./commands/status.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerChat } from "./commands/chat.js";
import { registerModels } from "./commands/models.js";
import { registerLogs } from "./commands/logs.js";
import { registerStats } from "./commands/stats.js";
import { registerUi } from "./commands/ui.js";
import { renderCliError } from "./render-error.js";
import { log } from "./terminal.js";

/** The commander program with every command; exits are decided by `run`. */
export function createProgram(): Command {
  const program = new Command("gateway")
    .description("A local LLM API gateway for OpenAI-, Anthropic- and Gemini-style tools.")
    .version(VERSION, "-v, --version")
    .showHelpAfterError("(run with --help for usage)")
    .enablePositionalOptions()
    .exitOverride();
  for (const register of [registerStart, registerStop, registerRun, registerLogin, registerLogout, registerEnv, registerStatus, registerDoctor, registerChat, registerModels, registerLogs, registerStats, registerUi]) {
    register(program);
  }
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Exits quietly when stdout is closed early (`gateway chat ... | head -1`). */
function exitOnBrokenPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

/** Runs the CLI; every failure is rendered by `renderCliError` into one line, a hint and the exit code. */
export async function run(argv: readonly string[]): Promise<void> {
  exitOnBrokenPipe();
  try {
    await createProgram().parseAsync(argv as string[]);
  } catch (error) {
    const rendered = renderCliError(error);
    if (rendered.message) log.error(rendered.message);
    if (rendered.hint) log.info(rendered.hint);
    process.exit(rendered.exitCode);
  }
}
