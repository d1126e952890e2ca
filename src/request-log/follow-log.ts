import { unwatchFile, watchFile, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { logFilePath } from "./log-file.js";
import type { RequestRecord } from "./record.js";
import { parseRecordLine, type LogPosition } from "./read-log.js";

/** How often the log file is checked for new lines. */
const POLL_MS = 200;

/**
 * Calls `onRecord` for each record in the current log after `from` (where `readRecords` stopped), across rotations
 * (a new inode or a shorter file starts over from its first byte). Polls with `fs.watchFile`, which works the same
 * on every platform and file system, unlike `fs.watch`. Returns a function that stops following.
 */
export function followRecords(dir: string, from: LogPosition, onRecord: (record: RequestRecord) => void, onError: (error: Error) => void): () => void {
  const path = logFilePath(dir);
  let { offset, inode } = from;
  let pending = "";
  let decoder = new StringDecoder("utf8");
  let reading = Promise.resolve();

  async function readNew(stats: Stats): Promise<void> {
    // watchFile reports a missing file (not created yet, or mid-rotation) as all zeros.
    if (stats.ino === 0) return;
    if (stats.ino !== inode || stats.size < offset) {
      offset = 0;
      inode = stats.ino;
      pending = "";
      decoder = new StringDecoder("utf8");
    }
    if (stats.size <= offset) return;
    const file = await open(path, "r");
    try {
      const buffer = Buffer.alloc(stats.size - offset);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      const lines = (pending + decoder.write(buffer.subarray(0, bytesRead))).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const record = parseRecordLine(line);
        if (record) onRecord(record);
      }
    } finally {
      await file.close();
    }
  }

  const onChange = (current: Stats) => {
    reading = reading.then(() => readNew(current)).catch(onError);
  };
  watchFile(path, { interval: POLL_MS, persistent: true }, onChange);
  // watchFile only reports changes; whatever came after `from` before it started is read now.
  stat(path).then(onChange, () => undefined);
  return () => unwatchFile(path, onChange);
}
