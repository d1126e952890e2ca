/**
 * Finding fields in raw JSON bytes without parsing the document: one top-level string field (the model of any
 * JSON body, for the request record; where the model's bytes are, for an alias rewrite, so every other byte goes
 * upstream as it came), the object a key holds (a reply's usage), and whether a key's value is `null`.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** A string value's position: `start` at its opening quote, `end` just after its closing one. */
export interface StringField {
  start: number;
  end: number;
  value: string;
}

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function skipSpace(buf: Uint8Array, i: number): number {
  while (isSpace(buf[i])) i++;
  return i;
}

/** Index just after the string that opens at `i` (a quote), or -1 when it never closes. */
function skipString(buf: Uint8Array, i: number): number {
  for (let j = i + 1; j < buf.length; j++) {
    if (buf[j] === BACKSLASH) j++;
    else if (buf[j] === QUOTE) return j + 1;
  }
  return -1;
}

/** Index just after the value that starts at `i`, or -1 for malformed input. */
function skipValue(buf: Uint8Array, i: number): number {
  const first = buf[i];
  if (first === QUOTE) return skipString(buf, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < buf.length; j++) {
      const b = buf[j];
      if (b === QUOTE) {
        j = skipString(buf, j) - 1;
        if (j < 0) return -1;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < buf.length && buf[j] !== COMMA && buf[j] !== CLOSE_BRACE && !isSpace(buf[j])) j++;
  return j === i ? -1 : j;
}

function decode(buf: Uint8Array, start: number, end: number): string | undefined {
  try {
    return JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString("utf8")) as string;
  } catch {
    return undefined;
  }
}

/**
 * The top-level string field `name` of a JSON object body, or undefined when the body is not an object, the
 * field is absent or not a string. Nested fields of the same name are skipped; the last occurrence wins, as with
 * `JSON.parse`.
 */
export function findTopLevelString(buf: Uint8Array, name: string): StringField | undefined {
  let i = skipSpace(buf, 0);
  if (buf[i] !== OPEN_BRACE) return undefined;
  i = skipSpace(buf, i + 1);
  if (buf[i] === CLOSE_BRACE) return undefined;
  let found: StringField | undefined;
  for (;;) {
    if (buf[i] !== QUOTE) return undefined;
    const keyEnd = skipString(buf, i);
    if (keyEnd < 0) return undefined;
    const key = decode(buf, i, keyEnd);
    i = skipSpace(buf, keyEnd);
    if (buf[i] !== COLON) return undefined;
    i = skipSpace(buf, i + 1);
    const valueEnd = skipValue(buf, i);
    if (valueEnd < 0) return undefined;
    if (key === name) {
      const value = buf[i] === QUOTE ? decode(buf, i, valueEnd) : undefined;
      found = value === undefined ? undefined : { start: i, end: valueEnd, value };
    }
    i = skipSpace(buf, valueEnd);
    if (buf[i] === CLOSE_BRACE) return found;
    if (buf[i] !== COMMA) return undefined;
    i = skipSpace(buf, i + 1);
  }
}

/** `buf` with the bytes of `field` replaced by `value` as a JSON string; every other byte is kept. */
export function replaceString(buf: Buffer, field: StringField, value: string): Buffer {
  return Buffer.concat([buf.subarray(0, field.start), Buffer.from(JSON.stringify(value)), buf.subarray(field.end)]);
}

const NULL = Buffer.from("null");

/** Whether the bytes at `i`, right after a key, are `: null` (spaces allowed); false when `buf` ends before it shows. */
export function nullValueAfter(buf: Buffer, i: number): boolean {
  i = skipSpace(buf, i);
  if (buf[i] !== COLON) return false;
  i = skipSpace(buf, i + 1);
  return i + NULL.length <= buf.length && buf.compare(NULL, 0, NULL.length, i, i + NULL.length) === 0;
}

/**
 * The bytes of the object value of the last `key` (given with its quotes: `"usage"`) in `buf`, or undefined when
 * there is none or its value is not an object. A quoted key right after `{` or `,` cannot be inside a string (a
 * string's quotes are escaped), so no parse of the document is needed to know it is a key.
 */
export function lastObjectOf(buf: Buffer, quotedKey: Buffer): Buffer | undefined {
  const at = buf.lastIndexOf(quotedKey);
  if (at < 0) return undefined;
  let before = at - 1;
  while (isSpace(buf[before])) before--;
  if (buf[before] !== OPEN_BRACE && buf[before] !== COMMA) return undefined;
  let i = skipSpace(buf, at + quotedKey.length);
  if (buf[i] !== COLON) return undefined;
  i = skipSpace(buf, i + 1);
  if (buf[i] !== OPEN_BRACE) return undefined;
  const end = skipValue(buf, i);
  return end < 0 ? undefined : buf.subarray(i, end);
}
