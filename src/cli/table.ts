import stringWidth from "string-width";

/** A column of a terminal table. */
export interface Column {
  title: string;
  /** Numbers read better right-aligned. */
  align?: "left" | "right";
  /** Longer cells are cut with `…`; without it the column is as wide as its widest cell. */
  maxWidth?: number;
}

/** Cut to `maxWidth` terminal columns (wide characters count two), ending in `…`. */
function fit(cell: string, maxWidth: number | undefined): string {
  if (maxWidth === undefined || stringWidth(cell) <= maxWidth) return cell;
  let out = "";
  for (const char of cell) {
    if (stringWidth(out + char) > maxWidth - 1) break;
    out += char;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` terminal columns, on the right or the left. */
function pad(text: string, width: number, align: Column["align"]): string {
  const fill = " ".repeat(Math.max(0, width - stringWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

/** Cells padded to their column's width, two spaces apart, no trailing blanks. */
export function formatRow(columns: readonly Column[], widths: readonly number[], cells: readonly string[]): string {
  return cells
    .map((cell, i) => {
      return pad(fit(cell, columns[i]!.maxWidth), widths[i]!, columns[i]!.align);
    })
    .join("  ")
    .trimEnd();
}

/** Each column's width: its widest cell (title included), capped at `maxWidth`. */
export function columnWidths(columns: readonly Column[], rows: readonly (readonly string[])[]): number[] {
  return columns.map((column, i) => {
    const widest = Math.max(stringWidth(column.title), ...rows.map((row) => stringWidth(row[i]!)));
    return column.maxWidth === undefined ? widest : Math.min(widest, column.maxWidth);
  });
}

/** A plain aligned table with a header line. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columnWidths(columns, rows);
  const titles = columns.map((c) => c.title);
  return [titles, ...rows].map((row) => formatRow(columns, widths, row)).join("\n");
}
