import { Command, CommanderError } from "commander";
import { CliError } from "../errors.js";
import { VERSION } from "../version.js";
import { registerChat } from "./commands/chat.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerEnv } from "./commands/env.js";
import { registerLogin } from "./commands/login.js";
import { registerLogout } from "./commands/logout.js";
import { registerLogs } from "./commands/logs.js";
import { registerModels } from "./commands/models.js";
import { registerStart } from "./commands/start.js";
import { registerStats } from "./commands/stats.js";
import { registerStatus } from "./commands/status.js";
import { log } from "./terminal.js";

/** The commander program with every command; exits are decided by `run`. */
export function createProgram(): Command {
  const program = new Command("gateway")
    .description("A local LLM API gateway for OpenAI- and Anthropic-style tools.")
    .version(VERSION, "-v, --version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  for (const register of [registerStart, registerLogin, registerLogout, registerEnv, registerStatus, registerDoctor, registerChat, registerModels, registerLogs, registerStats]) {
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

/**
 * Runs the CLI: 0 on success, 1 on failure with one error line and a hint on stderr (no stack trace), 2 on bad
 * usage.
 */
export async function run(argv: readonly string[]): Promise<void> {
  exitOnBrokenPipe();
  try {
    await createProgram().parseAsync(argv as string[]);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exit(error.exitCode === 0 ? 0 : 2);
    }
    if (error instanceof CliError) {
      log.error(error.message);
      if (error.hint) log.info(error.hint);
      process.exit(error.exitCode);
    }
    log.error(error instanceof Error ? error.message : String(error));
    log.info("This looks like a bug in gateway; run `gateway doctor`, and report it if it persists.");
    process.exit(1);
  }
}
