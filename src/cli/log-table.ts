import { clientName } from "../request-log/client-name.js";
import { formatMs, formatTime } from "../request-log/format.js";
import { cutShort, type RequestRecord } from "../request-log/record.js";
import { modelLabel, requestNote, streamed, tokenPair } from "../request-log/request-line.js";
import { statusPaint } from "./colors.js";
import { fitColumns, type FitRules, type FittedTable } from "./fit-columns.js";
import { columnWidths, cut, formatRow, type Cell, type Column } from "./table.js";

/**
 * The table of `gateway logs`. REQUEST keeps its method and its end when cut: that is where Gemini's method is
 * (`POST …:streamGenerateContent`). A `~` after the path marks a streamed reply.
 */
const COLUMNS: readonly Column[] = [
  { title: "TIME" },
  { title: "CLIENT", maxWidth: 16, room: 12 },
  { title: "REQUEST", cutMiddle: true, maxWidth: 64, room: 32 },
  { title: "MODEL", maxWidth: 36, room: 24 },
  { title: "UPSTREAM", maxWidth: 16 },
  { title: "STATUS", align: "right" },
  { title: "DURATION", align: "right" },
  { title: "TTFB", align: "right" },
  { title: "TOKENS", align: "right", room: 11 },
  { title: "NOTE", maxWidth: 48, room: 24 },
];

/**
 * How the table gives way on a narrow terminal (the README states this order): REQUEST (down to 40), MODEL, NOTE,
 * CLIENT and UPSTREAM get narrower, then REQUEST (down to a Gemini method's width), MODEL and NOTE once more; then
 * TTFB, CLIENT, UPSTREAM, NOTE and TOKENS go, in that order. A note that has no column left is printed on a line of
 * its own under its row.
 */
export const LOG_FIT: FitRules = {
  shrink: [
    ["REQUEST", 40],
    ["MODEL", 24],
    ["NOTE", 32],
    ["CLIENT", 10],
    ["UPSTREAM", 8],
    ["REQUEST", 30],
    ["MODEL", 12],
    ["NOTE", 16],
  ],
  drop: ["TTFB", "CLIENT", "UPSTREAM", "NOTE", "TOKENS"],
};

/** The cells of one record, in `COLUMNS` order. */
function cells(r: RequestRecord, colors: boolean, now: Date): Cell[] {
  const short = cutShort(r);
  return [
    formatTime(r.time, now),
    clientName(r.userAgent),
    `${r.method} ${r.path}${streamed(r) ? " ~" : ""}`,
    modelLabel(r),
    r.upstream ?? "-",
    { text: short ? `${r.status}!` : String(r.status), paint: statusPaint(r.status, short, colors) },
    formatMs(r.durationMs),
    formatMs(r.ttfbMs),
    tokenPair(r) ?? "-",
    requestNote(r),
  ];
}

export interface LogTableOptions {
  /** Terminal columns to fit in; undefined when output is not a terminal (no limit). */
  width: number | undefined;
  colors: boolean;
  /** Keep UPSTREAM even when every record so far went to `default`: there are several upstreams. */
  upstreams: boolean;
  /** Rows will follow (`-f`): columns keep room for rows not yet seen, and NOTE stays. */
  following: boolean;
  now?: Date;
}

/** The table's header and a function that formats each record as a row of it, laid out once for the rows given. */
export function logTable(records: readonly RequestRecord[], options: LogTableOptions): { header: string; row(r: RequestRecord): string } {
  const now = options.now ?? new Date();
  const rows = records.map((r) => cells(r, false, now));
  const natural = columnWidths(COLUMNS, rows);
  const noteOf = COLUMNS.findIndex((c) => c.title === "NOTE");
  const upstreamOf = COLUMNS.findIndex((c) => c.title === "UPSTREAM");
  if (options.following) COLUMNS.forEach((column, i) => (natural[i] = Math.max(natural[i]!, column.room ?? 0)));
  const unused = new Set<number>();
  if (!options.following && rows.every((row) => row[noteOf] === "")) unused.add(noteOf);
  if (!options.upstreams && records.every((r) => r.upstream === undefined || r.upstream === "default")) unused.add(upstreamOf);
  const shown = COLUMNS.map((_, i) => i).filter((i) => !unused.has(i));
  const table: FittedTable = fitColumns(
    shown.map((i) => COLUMNS[i]!),
    shown.map((i) => natural[i]!),
    options.width,
    LOG_FIT,
  );
  const pick = (all: readonly Cell[]) => table.pick(shown.map((i) => all[i]!));
  const noteLine = table.columns.some((c) => c.title === "NOTE") ? undefined : `${" ".repeat(table.widths[0]! + 2)}↳ `;
  return {
    header: formatRow(table.columns, table.widths, table.columns.map((c) => c.title)),
    row(r) {
      const all = cells(r, options.colors, now);
      const line = formatRow(table.columns, table.widths, pick(all));
      const note = all[noteOf] as string;
      if (!noteLine || !note) return line;
      return `${line}\n${noteLine}${options.width === undefined ? note : cut(note, options.width - noteLine.length - 1)}`;
    },
  };
}
