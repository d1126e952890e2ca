/**
 * The one error hierarchy. Every error meant for a person is a `GatewayError`: a message that says what went wrong
 * and a hint that says what to do next. Two places render them: `server/reply/send-error.ts` turns one into an HTTP
 * answer in the caller's format, `cli/render-error.ts` into a line, a hint and an exit code. No layer decides how
 * its errors are shown.
 */

export interface GatewayErrorOptions {
  /** The next step, shown under the message. */
  hint?: string | undefined;
  cause?: unknown;
}

/** The base of every error meant for the user. */
export class GatewayError extends Error {
  readonly hint: string | undefined;

  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** The command line itself is wrong: an option value, a missing argument (exit 2, like commander's own). */
export class UsageError extends GatewayError {}

/** Where a configuration value came from: flags are usage, a file or the environment is a failure. */
export type ConfigSource = "file" | "env" | "flag";

/** An invalid config file, environment value or flag, naming the source, the field and what is expected. */
export class ConfigError extends GatewayError {
  readonly source: ConfigSource;

  constructor(message: string, source: ConfigSource, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.source = source;
  }
}

/** No usable OS keychain (no Secret Service, locked, timed out). */
export class KeychainError extends GatewayError {}

/** A file or directory of the gateway's own that is unsafe to use (a symlink, not a regular file, too open). */
export class UnsafeFileError extends GatewayError {}

/** The server could not listen: the port is busy or refused for another reason. */
export class ListenError extends GatewayError {}

/** A running gateway could not be found, started or stopped, or answered a command badly. */
export class GatewayProcessError extends GatewayError {}

/** A check or an operation failed in a way its message already explains (`doctor`'s summary, `status`). */
export class FailedError extends GatewayError {}

/** `gateway run` was given a command that does not exist (exit 127, as shells do). */
export class CommandNotFoundError extends GatewayError {}
