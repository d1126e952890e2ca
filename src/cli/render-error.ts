import { CommanderError } from "commander";
import { CommandNotFoundError, ConfigError, GatewayError, UsageError } from "../errors/index.js";
import { redact } from "./secrets.js";

/** What the terminal shows for a failure, and the exit code (SPEC section 6). */
export interface RenderedError {
  message: string;
  hint: string | undefined;
  exitCode: number;
}

/** commander's codes for help it printed itself (`--help`, `--version`, a bare `gateway`): nothing more to say. */
const HELP_SHOWN = new Set(["commander.helpDisplayed", "commander.version", "commander.help"]);

/**
 * commander's `error: unknown option '--bogus'\n(Did you mean --bogus2?)` in our words: `Unknown option '--bogus'.
 * Did you mean --bogus2?`, with the help command of the command it was given to as the hint.
 */
function usageError(error: CommanderError, command: string | undefined): RenderedError {
  const [first = "", ...rest] = error.message.replace(/^error: /, "").split("\n");
  const suggestion = rest.map((line) => line.replace(/^\((.*)\)$/, "$1")).join(" ");
  const sentence = `${first.charAt(0).toUpperCase()}${first.slice(1)}${/[.?!]$/.test(first) ? "" : "."}`;
  return { message: suggestion ? `${sentence} ${suggestion}` : sentence, hint: `Run \`gateway${command ? ` ${command}` : ""} --help\` for usage.`, exitCode: 2 };
}

/**
 * The one place an error becomes a line, a hint and an exit code: 2 for bad usage (an unknown command or option, a
 * bad option value), 127 for a command `gateway run` cannot find, 1 for every other failure. Text that may hold
 * what the network sent is redacted. Anything that is not one of our errors is a bug, and says so. `command` is
 * the command the user ran, for usage hints.
 */
export function renderCliError(error: unknown, command?: string): RenderedError {
  if (error instanceof CommanderError) {
    if (HELP_SHOWN.has(error.code)) return { message: "", hint: undefined, exitCode: error.exitCode === 0 ? 0 : 2 };
    return usageError(error, command);
  }
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
