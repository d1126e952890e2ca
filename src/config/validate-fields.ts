import { safeParse, type GenericSchema } from "valibot";
import { issueError, type Source } from "./issue-message.js";
import { portText } from "./schemas/values.js";

export type { Source } from "./issue-message.js";

/** The command line: its errors are usage (exit 2). */
export const FLAG_SOURCE: Source = { label: "the command line", kind: "flag" };
/** One environment variable: its errors are failures (exit 1). */
export const envSource = (name: string): Source => ({ label: name, kind: "env" });
/** The config file: its errors are failures (exit 1). */
export const fileSource = (path: string): Source => ({ label: path, kind: "file" });

/**
 * Checks `value` from `source` against `schema` and returns what the schema makes of it, or throws the
 * `ConfigError` of its first problem. `field` names the value itself when the problem is not inside it (the flag,
 * the variable, or `(root)` for a whole file). Each field stops at its first problem, as users fix them one by one.
 */
export function validateValue<T>(source: Source, schema: GenericSchema<unknown, T>, value: unknown, field: string): T {
  const result = safeParse(schema, value, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw issueError(source, result.issues, field, value);
}

/** A port, 0 to 65535 (`--port` of the commands that talk to a running gateway). */
export function validatePort(source: Source, value: unknown, field = "port"): number {
  return validateValue(source, portText, value, field);
}
