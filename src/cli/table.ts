import stringWidth from "string-width";

/** A column of a terminal table. */
export interface Column {
  title: string;
  /** Numbers read better right-aligned. */
  align?: "left" | "right";
  /** Longer cells are cut with `…`; without it the column is as wide as its widest cell. */
  maxWidth?: number;
  /** The width to keep for rows not yet seen (`logs -f`), when the rows so far are narrower. */
  room?: number;
  /**
   * Cut long cells in the middle, after their first word, where they say the least: `POST /v1beta/models/gemini-pro:streamGenerateContent`
   * becomes `POST …:streamGenerateContent`.
   */
  cutMiddle?: boolean;
}

/** A cell's text, and how to colour it on a terminal (applied after cutting and padding are measured). */
export type Cell = string | { text: string; paint?: ((text: string) => string) | undefined };

const textOf = (cell: Cell): string => (typeof cell === "string" ? cell : cell.text);

/** The first characters of `text` (or the last, `fromEnd`) that fit in `width` terminal columns (wide characters count two). */
function take(text: string, width: number, fromEnd = false): string {
  const chars = fromEnd ? [...text].reverse() : [...text];
  let out = "";
  let used = 0;
  for (const char of chars) {
    used += stringWidth(char);
    if (used > width) break;
    out = fromEnd ? char + out : out + char;
  }
  return out;
}

/** Cut to `width` terminal columns, with `…` where text was left out: at the end, or in the middle after the first word. */
export function cut(text: string, width: number, middle = false): string {
  if (stringWidth(text) <= width) return text;
  const space = text.indexOf(" ");
  if (!middle || space < 0 || space + 3 > width) return `${take(text, width - 1)}…`;
  const head = text.slice(0, space + 1);
  return `${head}…${take(text.slice(space + 1), width - stringWidth(head) - 1, true)}`;
}

/** `text` padded with spaces to `width` terminal columns, on the right or the left. */
function pad(text: string, width: number, align: Column["align"]): string {
  const fill = " ".repeat(Math.max(0, width - stringWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

/** Cells cut and padded to their column's width, two spaces apart, no trailing blanks. */
export function formatRow(columns: readonly Column[], widths: readonly number[], cells: readonly Cell[]): string {
  return cells
    .map((cell, i) => {
      const column = columns[i]!;
      const text = cut(textOf(cell), widths[i]!, column.cutMiddle);
      const painted = typeof cell !== "string" && cell.paint ? cell.paint(text) : text;
      return pad(text, widths[i]!, column.align).replace(text, painted);
    })
    .join("  ")
    .trimEnd();
}

/** Each column's width: its widest cell (title included), capped at `maxWidth`. */
export function columnWidths(columns: readonly Column[], rows: readonly (readonly Cell[])[]): number[] {
  return columns.map((column, i) => {
    const widest = Math.max(stringWidth(column.title), ...rows.map((row) => stringWidth(textOf(row[i]!))));
    return column.maxWidth === undefined ? widest : Math.min(widest, column.maxWidth);
  });
}

/** A plain aligned table with a header line. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  const widths = columnWidths(columns, rows);
  const titles = columns.map((c) => c.title);
  return [titles, ...rows].map((row) => formatRow(columns, widths, row)).join("\n");
}
