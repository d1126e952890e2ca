/** A column of a terminal table. */
export interface Column {
  title: string;
  /** Numbers read better right-aligned. */
  align?: "left" | "right";
  /** Longer cells are cut with `…`; without it the column is as wide as its widest cell. */
  maxWidth?: number;
}

function fit(cell: string, maxWidth: number | undefined): string {
  return maxWidth !== undefined && cell.length > maxWidth ? `${cell.slice(0, maxWidth - 1)}…` : cell;
}

/** Cells padded to their column's width, two spaces apart, no trailing blanks. */
export function formatRow(columns: readonly Column[], widths: readonly number[], cells: readonly string[]): string {
  return cells
    .map((cell, i) => {
      const text = fit(cell, columns[i]!.maxWidth);
      return columns[i]!.align === "right" ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
    })
    .join("  ")
    .trimEnd();
}

/** Each column's width: its widest cell (title included), capped at `maxWidth`. */
export function columnWidths(columns: readonly Column[], rows: readonly (readonly string[])[]): number[] {
  return columns.map((column, i) => {
    const widest = Math.max(column.title.length, ...rows.map((row) => row[i]!.length));
    return column.maxWidth === undefined ? widest : Math.min(widest, column.maxWidth);
  });
}

/** A plain aligned table with a header line. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columnWidths(columns, rows);
  const titles = columns.map((c) => c.title);
  return [titles, ...rows].map((row) => formatRow(columns, widths, row)).join("\n");
}
