import { formatWithOptions } from "node:util";
import type { ConsolaReporter, LogObject } from "consola";
import { colors } from "consola/utils";
import { colorsOn } from "./colors.js";

/** The mark and colour of each kind of line; plain `log` lines get neither. */
const MARKS: Readonly<Record<string, [mark: string, color: (text: string) => string]>> = {
  error: ["✖", colors.red],
  fatal: ["✖", colors.red],
  warn: ["⚠", colors.yellow],
  info: ["ℹ", colors.cyan],
  start: ["◐", colors.magenta],
  success: ["✔", colors.green],
  ready: ["✔", colors.green],
  fail: ["✖", colors.red],
};

/**
 * One line per message, a mark in front, colour only on a terminal: what the README's samples show. consola's
 * own fancy reporter puts a blank line before every warning and error and a clock at the right edge, which
 * makes a column of request lines hard to read.
 */
export function lineReporter(stream: NodeJS.WriteStream): ConsolaReporter {
  return {
    log(entry: LogObject) {
      const text = formatWithOptions({ colors: false }, ...entry.args);
      const marked = MARKS[entry.type];
      const line = marked ? `${colorsOn(stream) ? marked[1](marked[0]) : marked[0]} ${text}` : text;
      stream.write(`${line}\n`);
    },
  };
}
