import type { Command } from "commander";
import { UsageError } from "../../errors/index.js";
import { loadPricer, type Pricer } from "../../pricing/index.js";
import { followRecords } from "../../request-log/follow-log.js";
import { logFilePath } from "../../request-log/log-file.js";
import { formatTime } from "../../request-log/format.js";
import type { LogEvent, RequestRecord } from "../../request-log/record.js";
import { readRecords } from "../../request-log/read-log.js";
import { colorsOn } from "../colors.js";
import { createContext, localKeyOf, portFlag } from "../context.js";
import { logTable } from "../log-table.js";
import { chooseGateway } from "../running-gateway.js";
import { redact } from "../secrets.js";
import { fetchCapture, formatCapture } from "../show-capture.js";
import { log, print } from "../terminal.js";

interface LogsOptions {
  lines?: string;
  follow?: boolean;
  json?: boolean;
  show?: string;
  port?: string;
}

/** Rows of the table when `-n` is not given; `--json` prints every stored record then. */
const TABLE_LINES = 20;

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`-n must be a whole number, got "${value}".`, { hint: "Example: gateway logs -n 50" });
  return n;
}

const tenth = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms * 10) / 10);

/** An event line of the log (SPEC 12: a collector that refuses exports) as the table shows it, between the requests. */
const eventRow = (event: LogEvent): string => `${formatTime(event.time)}  ${event.level === "warn" ? "warning" : event.level}: ${event.message}`;

/** Records and events in the order they happened. */
function inOrder(records: readonly RequestRecord[], events: readonly LogEvent[]): ({ record: RequestRecord } | { event: LogEvent })[] {
  const all = [...records.map((record) => ({ record, time: record.time })), ...events.map((event) => ({ event, time: event.time }))];
  // A stable sort: records keep the order they were written in.
  return all.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}

/** A stored record as `--json` prints it: durations to a tenth of a millisecond, and its cost (`null`: unknown). */
function jsonLine(r: RequestRecord, pricer: Pricer): string {
  return JSON.stringify({ ...r, durationMs: tenth(r.durationMs), ttfbMs: tenth(r.ttfbMs), costUsd: pricer(r) });
}

export function registerLogs(program: Command): void {
  program
    .command("logs")
    .description("show recent requests from the request log")
    .option("-n, --lines <n>", `how many recent requests (default: ${TABLE_LINES}; with --json, all)`)
    .option("-f, --follow", "keep printing requests as they happen")
    .option("--json", "print the stored records as JSON lines, with each one's cost")
    .option("--show <request id>", "print one request's captured headers and bodies (from the running gateway)")
    .option("-p, --port <n>", "with --show: the gateway on this port")
    .addHelpText(
      "after",
      "\nA status ending in ! is a reply cut short (NOTE says why); a ~ after the path marks a streamed reply.\nThe table fits the terminal: REQUEST, MODEL, NOTE, CLIENT and UPSTREAM get narrower, then TTFB, CLIENT,\nUPSTREAM, NOTE (then on a line of its own) and TOKENS go.\n\nExample:\n  gateway logs -n 50\n  gateway logs -f\n  gateway logs --json | jq .costUsd\n  gateway logs --show req_5f0c2a9e1b7d00000003",
    )
    .action(async (options: LogsOptions) => {
      const ctx = createContext({}, { fileProblems: "warn" });
      if (options.show !== undefined) {
        const { port } = await chooseGateway(ctx, portFlag(options.port));
        return print(redact(formatCapture(await fetchCapture(port, localKeyOf(ctx), options.show))));
      }
      const limit = options.lines === undefined ? (options.json ? Infinity : TABLE_LINES) : parseCount(options.lines);
      const { stateDir } = ctx.config;
      const { records, events, end } = await readRecords(stateDir, { limit });
      let show: (r: RequestRecord) => void;
      // An event is printed as it was stored with --json (it has `event`, never `requestId`), else as a line of its own.
      const showEvent = (event: LogEvent) => print(options.json ? JSON.stringify(event) : redact(eventRow(event)));
      if (options.json) {
        const pricer = await loadPricer(ctx.config);
        show = (r) => print(jsonLine(r, pricer));
      } else {
        const table = logTable(records, {
          width: process.stdout.isTTY ? process.stdout.columns : undefined,
          colors: colorsOn(process.stdout),
          upstreams: ctx.config.upstreams.length > 1,
          following: options.follow === true,
        });
        if (records.length > 0 || options.follow) print(table.header);
        show = (r) => print(table.row(r));
      }
      for (const entry of inOrder(records, events)) {
        if ("record" in entry) show(entry.record);
        else showEvent(entry.event);
      }
      if (!options.follow) {
        if (records.length === 0 && limit > 0) log.info(`No requests logged yet (${logFilePath(stateDir)}). Start the gateway with \`gateway start\` and send one.`);
        return;
      }
      await new Promise<void>((resolve) => {
        const stop = followRecords(stateDir, end, show, (error) => log.warn(`Cannot read ${logFilePath(stateDir)}: ${error.message}`), showEvent);
        const finish = () => {
          stop();
          resolve();
        };
        process.once("SIGINT", finish);
        process.once("SIGTERM", finish);
      });
    });
}
