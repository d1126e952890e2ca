import { colors } from "consola/utils";

/** Whether to colour what goes to `stream`: a terminal, and the user has not asked for none (`NO_COLOR`, `TERM=dumb`). */
export const colorsOn = (stream: NodeJS.WriteStream): boolean => stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== "dumb";

/** How a status reads at a glance on a terminal: red for 5xx and replies cut short, yellow for 4xx. */
export function statusPaint(status: number, cutShort: boolean, on: boolean): ((text: string) => string) | undefined {
  if (!on) return undefined;
  if (status >= 500 || cutShort) return colors.red;
  if (status >= 400) return colors.yellow;
  return undefined;
}
