import { LogLevels, createConsola, type ConsolaInstance } from "consola/core";
import { lineReporter } from "./reporter.js";

/**
 * All terminal output goes through consola. Status and errors go to stderr so stdout stays clean for what a
 * script consumes (`gateway env`, `gateway chat`, `--json`). The level is set: consola's default drops every
 * line but warnings and errors wherever NODE_ENV=test or a CI variable is set. `consola/core` because the line
 * reporter is our own: the full build loads its fancy reporter and prompts into every command (about 20 ms).
 */
export const log: ConsolaInstance = createConsola({ level: LogLevels.info, reporters: [lineReporter(process.stderr)] });

/** A logger writing to stdout: a foreground server's banner and request lines. */
export const stdoutLog = (): ConsolaInstance => createConsola({ level: LogLevels.info, reporters: [lineReporter(process.stdout)] });

/** Plain stdout writes for machine-readable output; consola would decorate them. */
export function print(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Reads all of standard input (for `--stdin` and piped prompts). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
