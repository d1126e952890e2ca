import { readFile } from "node:fs/promises";
import { parseJsonObject } from "../parse-json.js";
import { logFilePath } from "./log-file.js";
import type { RequestRecord } from "./record.js";

/** A stored line as a record, or undefined for a torn or foreign line (a crash mid-write, an edit by hand). */
export function parseRecordLine(line: string): RequestRecord | undefined {
  const value = parseJsonObject(line) as Partial<RequestRecord> | undefined;
  if (!value || typeof value.time !== "string" || typeof value.status !== "number" || typeof value.method !== "string") return undefined;
  return value as RequestRecord;
}

function parseLines(text: string): RequestRecord[] {
  const records: RequestRecord[] = [];
  for (const line of text.split("\n")) {
    const record = line ? parseRecordLine(line) : undefined;
    if (record) records.push(record);
  }
  return records;
}

export interface ReadOptions {
  /** Only the newest `limit` records. */
  limit?: number;
  /** Only records at or after this time (ms since the epoch). */
  since?: number;
}

/**
 * Stored records, oldest first. Files are read newest first and reading stops as soon as `limit` or `since` is
 * satisfied, so `gateway logs` stays fast however many rotated files there are.
 */
export async function readRecords(dir: string, options: ReadOptions = {}): Promise<RequestRecord[]> {
  const { limit = Infinity, since = -Infinity } = options;
  let newest: RequestRecord[] = [];
  for (let generation = 0; newest.length < limit; generation++) {
    let text: string;
    try {
      text = await readFile(logFilePath(dir, generation), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") break;
      throw error;
    }
    const records = parseLines(text);
    const kept = records.filter((r) => Date.parse(r.time) >= since);
    newest = [...kept, ...newest];
    if (kept.length < records.length) break;
  }
  return newest.slice(Math.max(0, newest.length - limit));
}
