import { constants } from "node:fs";
import { mkdir, open, rename, type FileHandle } from "node:fs/promises";
import { assertRegular, checkPrivateDir, refuseLink, SAFE_OPEN_FLAGS } from "../files/private-files.js";
import { join } from "node:path";
import type { LogEvent, RequestRecord, RequestSink } from "./record.js";

/** The current log; older ones are `requests.1.jsonl` (newest) to `requests.<keep>.jsonl` (oldest). */
export const LOG_FILE_NAME = "requests.jsonl";

export const logFilePath = (dir: string, generation = 0): string =>
  join(dir, generation === 0 ? LOG_FILE_NAME : `requests.${generation}.jsonl`);

export interface LogFileOptions {
  dir: string;
  /** Rotate before the current file would grow past this. @default 10 MiB */
  maxBytes?: number;
  /** Rotated files kept besides the current one. @default 3 */
  keep?: number;
  /** Records waiting to be written; more are dropped (and counted) rather than held. @default 10_000 */
  maxQueue?: number;
  /** How long a record may wait to be written with the ones after it. @default 100 */
  flushMs?: number;
  /** Told about the first failure only, so a full disk does not flood the terminal. */
  onError: (message: string) => void;
}

export interface LogFile {
  sink: RequestSink;
  /** Writes an event line among the records (`gateway logs` shows it; nothing counts it). */
  event(event: LogEvent): void;
  /** Writes what is queued and closes the file. */
  close(): Promise<void>;
}

/** The fields written to disk; headers (even redacted) stay on the terminal. */
function toLine(record: RequestRecord): string {
  if (record.headers === undefined) return `${JSON.stringify(record)}\n`;
  const { headers: _headers, ...stored } = record;
  return `${JSON.stringify(stored)}\n`;
}

/**
 * Appends request records as JSON lines, off the request path: `sink` only queues, and what is queued is written
 * together at most once per `flushMs`. Writing each record as it came cost a thread-pool round trip per request:
 * about 50 µs of CPU per request at one connection in `npm run bench`. The directory is 0700 and each file 0600,
 * because the log says which tools a user runs and when.
 */
export function createLogFile(options: LogFileOptions): LogFile {
  const { dir, maxBytes = 10 * 1024 * 1024, keep = 3, maxQueue = 10_000, flushMs = 100 } = options;
  let queue: string[] = [];
  let dropped = 0;
  let handle: FileHandle | undefined;
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  let draining: Promise<void> | undefined;
  let failed = false;

  function report(message: string): void {
    if (failed) return;
    failed = true;
    options.onError(message);
  }

  async function openCurrent(): Promise<FileHandle> {
    checkPrivateDir(dir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = logFilePath(dir);
    const opened = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | SAFE_OPEN_FLAGS, 0o600).catch((error: unknown) =>
      refuseLink(path, error),
    );
    try {
      const stats = await opened.stat();
      assertRegular(path, stats);
      // A file created by an older version, or by hand, may be readable by others.
      await opened.chmod(0o600);
      size = stats.size;
      return opened;
    } catch (error) {
      await opened.close();
      throw error;
    }
  }

  async function rotate(): Promise<void> {
    await handle?.close();
    handle = undefined;
    for (let generation = keep; generation >= 1; generation--) {
      await rename(logFilePath(dir, generation - 1), logFilePath(dir, generation)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    }
  }

  /** Writes the lines in as few writes as rotation allows; each file stays within `maxBytes` unless one line is longer. */
  async function append(lines: readonly string[]): Promise<void> {
    handle ??= await openCurrent();
    let batch = "";
    let bytes = 0;
    for (const line of lines) {
      const lineBytes = Buffer.byteLength(line);
      if (size + bytes > 0 && size + bytes + lineBytes > maxBytes) {
        if (batch) await handle.write(batch);
        await rotate();
        handle = await openCurrent();
        batch = "";
        bytes = 0;
      }
      batch += line;
      bytes += lineBytes;
    }
    if (batch) await handle.write(batch);
    size += bytes;
  }

  async function drain(): Promise<void> {
    const lines = queue;
    queue = [];
    try {
      await append(lines);
    } catch (error) {
      report(`Cannot write the request log in ${dir}: ${(error as Error).message}. Requests are still served; they are just not logged.`);
      await handle?.close().catch(() => undefined);
      handle = undefined;
    }
    if (dropped > 0) {
      report(`The request log fell behind and skipped ${dropped} record(s); is the disk slow or full?`);
      dropped = 0;
    }
  }

  function schedule(): void {
    timer ??= setTimeout(() => {
      timer = undefined;
      draining = drain().then(() => {
        draining = undefined;
        // What came in during the write waits for the next turn: a busy gateway still writes once per turn.
        if (queue.length > 0) schedule();
      });
    }, flushMs);
  }

  function enqueue(line: string): void {
    if (queue.length >= maxQueue) {
      dropped++;
      return;
    }
    queue.push(line);
    if (!draining) schedule();
  }

  return {
    sink: (record) => enqueue(toLine(record)),
    event: (event) => enqueue(`${JSON.stringify(event)}\n`),
    async close() {
      await draining;
      clearTimeout(timer);
      timer = undefined;
      if (queue.length > 0) await drain();
      await handle?.close();
      handle = undefined;
    },
  };
}
