import type { Cell, Column } from "./table.js";

/** How a table gives way on a narrow terminal. */
export interface FitRules {
  /** Columns (by title) that may get narrower, first to last, and the narrowest each may get. */
  shrink: readonly (readonly [title: string, minWidth: number])[];
  /** Columns (by title) left out, first to last, when shrinking was not enough. */
  drop: readonly string[];
}

/** The columns kept, their widths, and the cells of a row in that shape. */
export interface FittedTable {
  columns: Column[];
  widths: number[];
  pick(cells: readonly Cell[]): Cell[];
}

const GAP = 2;
const total = (widths: readonly number[]) => widths.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, widths.length - 1);

/**
 * Fits a table into `width` terminal columns (undefined: no limit, as when output is piped). Columns shrink in the
 * stated order, down to their minimum; if that is not enough, columns go in the stated order, and what their
 * going frees is given back to the shrunk ones, last shrunk first.
 */
export function fitColumns(columns: readonly Column[], natural: readonly number[], width: number | undefined, rules: FitRules): FittedTable {
  const index = (title: string) => columns.findIndex((c) => c.title === title);
  const widths = [...natural];
  let kept = columns.map((_, i) => i);
  const over = () => (width === undefined ? 0 : total(kept.map((i) => widths[i]!)) - width);
  const shrinkable = rules.shrink.map(([title, min]) => [index(title), min] as const).filter(([i]) => i >= 0);
  for (const [i, min] of shrinkable) {
    if (over() <= 0) break;
    widths[i] = Math.max(Math.min(min, natural[i]!), widths[i]! - over());
  }
  for (const title of rules.drop) {
    if (over() <= 0) break;
    const i = index(title);
    kept = kept.filter((k) => k !== i);
  }
  for (const [i] of [...shrinkable].reverse()) {
    if (over() >= 0) break;
    widths[i] = Math.min(natural[i]!, widths[i]! - over());
  }
  return {
    columns: kept.map((i) => columns[i]!),
    widths: kept.map((i) => widths[i]!),
    pick: (cells) => kept.map((i) => cells[i]!),
  };
}
