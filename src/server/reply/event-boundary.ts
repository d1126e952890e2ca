import { nullValueAfter } from "../json-scan.js";

const LF = 0x0a;
const CR = 0x0d;

const isBreak = (b: number | undefined): boolean => b === LF || b === CR;

/**
 * The index just after the last complete server-sent event in `buf` (after its blank line), or 0 when no event
 * ends in it. A blank line is a line break right after another one; breaks are LF, CR or CRLF. A CR at the very
 * end may be the first half of a CRLF, and some clients (the genai SDK) only split on `\n\n`, `\r\r` and
 * `\r\n\r\n`, so it ends nothing until the next byte shows what it is. Scans from the end, so the usual chunk,
 * which ends with its event, costs two byte reads.
 */
export function lastEventEnd(buf: Uint8Array): number {
  for (let p = buf.length - 1; p > 0; p--) {
    const b = buf[p];
    if (!isBreak(b) || (b === CR && p === buf.length - 1)) continue;
    // The break that ends at p: CRLF or a single byte. The line before it is empty when a break precedes it.
    const before = b === LF && buf[p - 1] === CR ? p - 2 : p - 1;
    if (before >= 0 && isBreak(buf[before])) return p + 1;
  }
  return 0;
}

/**
 * Where `needle` (two bytes or more) first occurs in `buf` at or after `from`, or -1. Anchored on the needle's
 * second byte, found with the one-byte `indexOf` (memchr), because its first is a quote, the commonest byte in
 * JSON: on a 3 KB chunk of events this takes 0.6 µs, where `Buffer#indexOf(needle)` or a byte loop take 3.3 µs.
 */
export function indexOfBytes(buf: Buffer, needle: Uint8Array, from = 0): number {
  const anchor = needle[1]!;
  for (let i = buf.indexOf(anchor, from + 1); i !== -1; i = buf.indexOf(anchor, i + 1)) {
    const start = i - 1;
    if (start + needle.length > buf.length) return -1;
    let j = 0;
    while (j < needle.length && buf[start + j] === needle[j]) j++;
    if (j === needle.length) return start;
  }
  return -1;
}

/** Whether `needle` (two bytes or more) occurs in `buf`. */
export const includesBytes = (buf: Buffer, needle: Uint8Array): boolean => indexOfBytes(buf, needle) !== -1;

/**
 * Where the first event of `buf` (which starts at an event boundary) that gives the key `quotedKey` (`"usage"`) a
 * value begins, or -1 when none does: an occurrence followed by `: null` gives none. OpenAI's streams, and servers
 * copying them, put `"usage":null` in every chunk when the last one will carry it: such chunks are skipped, and one
 * that ends the stream is parsed from its usage event on.
 */
export function firstEventGivingValueOf(buf: Buffer, quotedKey: Uint8Array): number {
  for (let at = indexOfBytes(buf, quotedKey); at !== -1; at = indexOfBytes(buf, quotedKey, at + quotedKey.length)) {
    if (!nullValueAfter(buf, at + quotedKey.length)) return lastEventEnd(buf.subarray(0, at));
  }
  return -1;
}
