import type { Command } from "commander";
import { UsageError } from "../../errors/index.js";
import { clientName } from "../../request-log/client-name.js";
import { followRecords } from "../../request-log/follow-log.js";
import { logFilePath } from "../../request-log/log-file.js";
import { cutShort, type RequestRecord } from "../../request-log/record.js";
import { formatMs, modelLabel, tokenPair } from "../../request-log/request-line.js";
import { findGateway } from "../../running/find-gateway.js";
import { readRecords } from "../../request-log/read-log.js";
import { createContext, localKeyOf, portFlag } from "../context.js";
import { redact } from "../secrets.js";
import { fetchCapture, formatCapture } from "../show-capture.js";
import { formatRow, type Column } from "../table.js";
import { log, print } from "../terminal.js";

/** Fixed widths, so rows printed while following line up with the ones before. */
const COLUMNS: readonly Column[] = [
  { title: "TIME", maxWidth: 14 },
  { title: "CLIENT", maxWidth: 14 },
  { title: "REQUEST", maxWidth: 34 },
  { title: "MODEL", maxWidth: 24 },
  { title: "STATUS", maxWidth: 6, align: "right" },
  { title: "DURATION", maxWidth: 8, align: "right" },
  { title: "TTFB", maxWidth: 7, align: "right" },
  { title: "TOKENS", maxWidth: 13, align: "right" },
];
const WIDTHS = COLUMNS.map((c) => c.maxWidth!);

const two = (n: number) => String(n).padStart(2, "0");

/** `11-21 14:03:07`, in local time: the log is read by the person sitting at this machine. */
function shortTime(iso: string): string {
  const d = new Date(iso);
  return `${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function row(r: RequestRecord): string {
  const status = cutShort(r) ? `${r.status}!` : String(r.status);
  return formatRow(COLUMNS, WIDTHS, [shortTime(r.time), clientName(r.userAgent), `${r.method} ${r.path}`, modelLabel(r), status, formatMs(r.durationMs), formatMs(r.ttfbMs), tokenPair(r) ?? "-"]);
}

interface LogsOptions {
  lines: string;
  follow?: boolean;
  json?: boolean;
  show?: string;
  port?: string;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`-n must be a whole number, got "${value}".`, { hint: "Example: gateway logs -n 50" });
  return n;
}

export function registerLogs(program: Command): void {
  program
    .command("logs")
    .description("show recent requests from the request log")
    .option("-n, --lines <n>", "how many recent requests", "20")
    .option("-f, --follow", "keep printing requests as they happen")
    .option("--json", "print the stored JSON lines")
    .option("--show <request id>", "print one request's captured headers and bodies (from the running gateway)")
    .option("-p, --port <n>", "with --show: the gateway on this port")
    .addHelpText("after", "\nA status ending in ! is a reply cut short (upstream died, timed out, or the client left).\n\nExample:\n  gateway logs -n 50\n  gateway logs -f\n  gateway logs --json | jq .model\n  gateway logs --show req_5f0c2a9e1b7d00000003")
    .action(async (options: LogsOptions) => {
      if (options.show !== undefined) {
        const ctx = createContext();
        const { port } = await findGateway(ctx.config, portFlag(options.port));
        return print(redact(formatCapture(await fetchCapture(port, localKeyOf(ctx), options.show))));
      }
      const limit = parseCount(options.lines);
      const { stateDir } = createContext().config;
      const { records, end } = await readRecords(stateDir, { limit });
      const show = options.json ? (r: RequestRecord) => print(JSON.stringify(r)) : (r: RequestRecord) => print(row(r));
      if (!options.json && (records.length > 0 || options.follow)) print(formatRow(COLUMNS, WIDTHS, COLUMNS.map((c) => c.title)));
      records.forEach(show);
      if (!options.follow) {
        if (records.length === 0 && limit > 0) log.info(`No requests logged yet (${logFilePath(stateDir)}). Start the gateway with \`gateway start\` and send one.`);
        return;
      }
      await new Promise<void>((resolve) => {
        const stop = followRecords(stateDir, end, show, (error) => log.warn(`Cannot read ${logFilePath(stateDir)}: ${error.message}`));
        const finish = () => {
          stop();
          resolve();
        };
        process.once("SIGINT", finish);
        process.once("SIGTERM", finish);
      });
    });
}
