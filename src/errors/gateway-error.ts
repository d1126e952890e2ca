/**
 * Errors of the layers below the CLI (config, keychain, files, listen, the terminal client). Each says what went
 * wrong in one line and what to do next in its hint; the CLI turns them into a line, a hint and an exit code in
 * one place (`cli/render-error.ts`), so no layer decides how it is shown or which code the process exits with.
 */

export interface AppErrorOptions {
  /** The next step, shown under the message. */
  hint?: string | undefined;
  cause?: unknown;
}

/** The base of every error meant for the user. */
export class AppError extends Error {
  readonly hint: string | undefined;

  constructor(message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** The command line itself is wrong: an option value, a missing argument (exit 2, like commander's own). */
export class UsageError extends AppError {}

/** Where a configuration value came from: flags are usage, a file or the environment is a failure. */
export type ConfigSource = "file" | "env" | "flag";

/** An invalid config file, environment value or flag, naming the source, the field and what is expected. */
export class ConfigError extends AppError {
  readonly source: ConfigSource;

  constructor(message: string, source: ConfigSource, options: AppErrorOptions = {}) {
    super(message, options);
    this.source = source;
  }
}

/** No usable OS keychain (no Secret Service, locked, timed out). */
export class KeychainError extends AppError {}

/** A real upstream is configured but no key is stored for it. */
export class NoUpstreamKeyError extends AppError {}

/** A file or directory of the gateway's own that is unsafe to use (a symlink, not a regular file, too open). */
export class UnsafeFileError extends AppError {}

/** The server could not listen: the port is busy or refused for another reason. */
export class ListenError extends AppError {}

/** The upstream could not be reached, timed out, or answered the terminal client with an error status. */
export class UpstreamError extends AppError {
  /** The upstream's status, when it answered. */
  readonly status: number | undefined;

  constructor(message: string, options: AppErrorOptions & { status?: number } = {}) {
    super(message, options);
    this.status = options.status;
  }
}

/** A running gateway could not be found, started or stopped. */
export class GatewayProcessError extends AppError {}

/** A check or an operation failed in a way its message already explains (`doctor`'s summary, `status`). */
export class FailedError extends AppError {}

/** `gateway run` was given a command that does not exist (exit 127, as shells do). */
export class CommandNotFoundError extends AppError {}
