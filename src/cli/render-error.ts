import { CommanderError } from "commander";
import { CommandNotFoundError, ConfigError, GatewayError, UsageError } from "../errors/index.js";
import { redact } from "./secrets.js";

/** What the terminal shows for a failure, and the exit code (SPEC section 6). */
export interface RenderedError {
  message: string;
  hint: string | undefined;
  exitCode: number;
}

/**
 * The one place an error becomes a line, a hint and an exit code: 2 for bad usage (an unknown option, a bad
 * option value), 127 for a command `gateway run` cannot find, 1 for every other failure. Text that may hold what
 * the network sent is redacted. Anything that is not one of our errors is a bug, and says so.
 */
export function renderCliError(error: unknown): RenderedError {
  if (error instanceof CommanderError) return { message: "", hint: undefined, exitCode: error.exitCode === 0 ? 0 : 2 };
  if (error instanceof UsageError || (error instanceof ConfigError && error.source === "flag")) {
    return { message: redact(error.message), hint: error.hint, exitCode: 2 };
  }
  if (error instanceof CommandNotFoundError) return { message: error.message, hint: error.hint, exitCode: 127 };
  if (error instanceof GatewayError) return { message: redact(error.message), hint: error.hint && redact(error.hint), exitCode: 1 };
  return {
    message: redact(error instanceof Error ? error.message : String(error)),
    hint: "This looks like a bug in gateway; run `gateway doctor`, and report it if it persists.",
    exitCode: 1,
  };
}
