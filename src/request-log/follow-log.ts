import { unwatchFile, watchFile } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { logFilePath } from "./log-file.js";
import type { LogEvent, RequestRecord } from "./record.js";
import { parseEventLine, parseRecordLine, type LogPosition } from "./read-log.js";

/** How often the log file is checked for new lines. */
const POLL_MS = 200;
const READ_SIZE = 64 * 1024;

const inodeAt = (path: string): Promise<number | undefined> => stat(path).then((s) => s.ino, () => undefined);

/**
 * Calls `onRecord` for each record written after `from` (where `readRecords` stopped), across rotations, like
 * `tail -F`: the file is followed by path and inode, and when the path names a new file, the old one (still
 * open here) is read to its end first, then the new one from its start. Nothing is missed and nothing is shown
 * twice. Polls with `fs.watchFile`, which works the same on every platform and file system, unlike `fs.watch`.
 * Returns a function that stops following.
 */
export function followRecords(
  dir: string,
  from: LogPosition,
  onRecord: (record: RequestRecord) => void,
  onError: (error: Error) => void,
  onEvent?: (event: LogEvent) => void,
): () => void {
  const path = logFilePath(dir);
  let file: FileHandle | undefined;
  let inode = from.inode;
  let offset = from.offset;
  let pending = "";
  let decoder = new StringDecoder("utf8");
  let stopped = false;
  let reading = Promise.resolve();

  /** Reads the open file from `offset` to its end, handing out every whole line. */
  async function readToEnd(): Promise<void> {
    const buffer = Buffer.alloc(READ_SIZE);
    for (;;) {
      const { bytesRead } = await file!.read(buffer, 0, READ_SIZE, offset);
      if (bytesRead === 0) return;
      offset += bytesRead;
      const lines = (pending + decoder.write(buffer.subarray(0, bytesRead))).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const record = parseRecordLine(line);
        if (record) onRecord(record);
        else if (onEvent) {
          const event = parseEventLine(line);
          if (event) onEvent(event);
        }
      }
    }
  }

  /** Opens `at` when it is the file `from` pointed into (or any file when there was none then). */
  async function openFile(at: string, expected: number | undefined): Promise<boolean> {
    const handle = await open(at, "r").catch(() => undefined);
    if (!handle) return false;
    const ino = (await handle.stat()).ino;
    if (expected !== undefined && ino !== expected) {
      await handle.close();
      return false;
    }
    file = handle;
    inode = ino;
    return true;
  }

  async function switchToNew(): Promise<void> {
    await file?.close();
    file = undefined;
    offset = 0;
    pending = "";
    decoder = new StringDecoder("utf8");
    if (await openFile(path, undefined)) await readToEnd();
  }

  async function poll(): Promise<void> {
    if (!file) {
      // First poll: the file `from` pointed into may have been rotated away since; it is then the newest old one.
      const opened = (await openFile(path, inode)) || (inode !== undefined && (await openFile(logFilePath(dir, 1), inode)));
      if (!opened) return switchToNew();
    }
    await readToEnd();
    const current = await inodeAt(path);
    if (current !== undefined && current !== inode) return switchToNew();
    if (current !== undefined && (await file!.stat()).size < offset) {
      // Truncated in place: start over.
      offset = 0;
      pending = "";
      await readToEnd();
    }
  }

  const onChange = () => {
    if (stopped) return;
    reading = reading.then(poll).catch(onError);
  };
  watchFile(path, { interval: POLL_MS, persistent: true }, onChange);
  // watchFile only reports changes; whatever came after `from` before it started is read now.
  onChange();
  return () => {
    stopped = true;
    unwatchFile(path, onChange);
    void reading.then(() => file?.close());
  };
}
