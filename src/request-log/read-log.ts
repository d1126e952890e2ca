import { open, readFile } from "node:fs/promises";
import { count } from "../formats/fields.js";
import type { Format } from "../formats/names.js";
import { parseJsonObject } from "../parse-json.js";
import { logFilePath } from "./log-file.js";
import type { LogEvent, RequestRecord } from "./record.js";

const TOKEN_FIELDS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"] as const;

/**
 * Records of older gateways, read as today's gateway writes them. Gateways before issue 37 recorded a translation only
 * as its display string (`messages -> chat`): a record of theirs gets the two formats it names, so that whatever
 * reads records (pricing) reads only the fields. Gateways before round 5 recorded a count a server reported that is
 * no count (negative): it is left out, as it is now when recorded, or the price table would refuse the whole log.
 */
function upgradeRecord(record: RequestRecord): RequestRecord {
  for (const field of TOKEN_FIELDS) if (record[field] !== undefined && count(record[field]) === undefined) record[field] = undefined;
  if (record.upstreamFormat !== undefined || typeof record.translated !== "string") return record;
  const [format, upstreamFormat] = record.translated.split(" -> ") as [Format, Format | undefined];
  return upstreamFormat === undefined ? record : Object.assign(record, { format, upstreamFormat });
}

/** A stored line as a record, or undefined for a torn or foreign line (a crash mid-write, an edit by hand). */
export function parseRecordLine(line: string): RequestRecord | undefined {
  const value = parseJsonObject(line) as Partial<RequestRecord> | undefined;
  if (!value || typeof value.time !== "string" || typeof value.status !== "number" || typeof value.method !== "string") return undefined;
  return upgradeRecord(value as RequestRecord);
}

/** A stored event line (`LogEvent`), or undefined for any other line. */
export function parseEventLine(line: string): LogEvent | undefined {
  const value = parseJsonObject(line) as Partial<LogEvent> | undefined;
  if (!value || typeof value.time !== "string" || typeof value.event !== "string" || typeof value.message !== "string") return undefined;
  return value as LogEvent;
}

function parseLines(text: string): { records: RequestRecord[]; events: LogEvent[] } {
  const records: RequestRecord[] = [];
  const events: LogEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const record = parseRecordLine(line);
    if (record) records.push(record);
    else {
      const event = parseEventLine(line);
      if (event) events.push(event);
    }
  }
  return { records, events };
}

/** A point in the current log file: the file (by inode, undefined when there was none) and a byte offset in it. */
export interface LogPosition {
  inode: number | undefined;
  offset: number;
}

export interface ReadOptions {
  /** Only the newest `limit` records. */
  limit?: number;
  /** Only records at or after this time (ms since the epoch). */
  since?: number;
}

export interface RecordsRead {
  /** Oldest first. */
  records: RequestRecord[];
  /** The event lines (oldest first) from the oldest record read on (every one read when no record is). */
  events: LogEvent[];
  /** Where reading stopped in the current file: following from here misses nothing and repeats nothing. */
  end: LogPosition;
}

const ENOENT = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/** The current file's whole lines, and the position just after the last of them (a half-written line is left to the follower). */
async function readCurrent(dir: string): Promise<{ text: string; end: LogPosition }> {
  let file;
  try {
    file = await open(logFilePath(dir), "r");
  } catch (error) {
    if (ENOENT(error)) return { text: "", end: { inode: undefined, offset: 0 } };
    throw error;
  }
  try {
    const [{ ino }, bytes] = await Promise.all([file.stat(), file.readFile()]);
    const offset = bytes.lastIndexOf(0x0a) + 1;
    return { text: bytes.toString("utf8", 0, offset), end: { inode: ino, offset } };
  } finally {
    await file.close();
  }
}

/**
 * Stored records, oldest first. Files are read newest first and reading stops as soon as `limit` or `since` is
 * satisfied, so `gateway logs` stays fast however many rotated files there are.
 */
export async function readRecords(dir: string, options: ReadOptions = {}): Promise<RecordsRead> {
  const { limit = Infinity, since = -Infinity } = options;
  const current = await readCurrent(dir);
  let text = current.text;
  let newest: RequestRecord[] = [];
  let events: LogEvent[] = [];
  for (let generation = 1; newest.length < limit; generation++) {
    const read = parseLines(text);
    const kept = read.records.filter((r) => Date.parse(r.time) >= since);
    newest = [...kept, ...newest];
    events = [...read.events.filter((e) => Date.parse(e.time) >= since), ...events];
    if (kept.length < read.records.length) break;
    try {
      text = await readFile(logFilePath(dir, generation), "utf8");
    } catch (error) {
      if (ENOENT(error)) break;
      throw error;
    }
  }
  const records = newest.slice(Math.max(0, newest.length - limit));
  // Events older than the oldest record shown belong to what `limit` left out.
  const from = newest.length > limit ? (records[0] ? Date.parse(records[0].time) : Infinity) : -Infinity;
  return { records, events: events.filter((e) => Date.parse(e.time) >= from), end: current.end };
}
