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
 * The index just after the blank line that ends the event holding `from`, or `buf.length` when no blank line follows
 * (a caller passes only bytes that end with a whole event). A CRLF that ends the blank line is taken whole.
 */
function eventEndAfter(buf: Uint8Array, from: number): number {
  for (let p = from; p < buf.length; p++) {
    const b = buf[p];
    if (!isBreak(b)) continue;
    const before = b === LF && buf[p - 1] === CR ? p - 2 : p - 1;
    if (before >= from && isBreak(buf[before])) return b === CR && buf[p + 1] === LF ? p + 2 : p + 1;
  }
  return buf.length;
}

/**
 * The whole events of `buf` (which starts and ends at event boundaries) in which the key `quotedKey` (`"usage"`) has
 * a value: an occurrence followed by `: null` gives none. OpenAI's streams, and servers copying them, put
 * `"usage":null` in every chunk when the last one will carry it; a chunk of twenty such events and the usage is
 * parsed as the one event that reports it.
 */
export function eventsGivingValueOf(buf: Buffer, quotedKey: Uint8Array): Buffer[] {
  const events: Buffer[] = [];
  for (let at = indexOfBytes(buf, quotedKey); at !== -1; ) {
    if (nullValueAfter(buf, at + quotedKey.length)) {
      at = indexOfBytes(buf, quotedKey, at + quotedKey.length);
      continue;
    }
    const end = eventEndAfter(buf, at);
    events.push(buf.subarray(lastEventEnd(buf.subarray(0, at)), end));
    at = indexOfBytes(buf, quotedKey, end);
  }
  return events;
}
