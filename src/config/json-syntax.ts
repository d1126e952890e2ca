import { createRequire } from "node:module";
import type * as Jsonc from "jsonc-parser";

/**
 * jsonc-parser, loaded only to describe a syntax error: a config that parses, as it does on nearly every run of every
 * command, never pays for its CommonJS modules (issue 52). `createRequire` keeps the load synchronous, as reading the
 * config is.
 */
const jsonc = (): typeof Jsonc => createRequire(import.meta.url)("jsonc-parser") as typeof Jsonc;

/** What each of jsonc-parser's syntax errors (`ParseErrorCode`, by name) means to someone editing the file by hand. */
const WORDING: Readonly<Record<keyof typeof Jsonc.ParseErrorCode, string>> = {
  InvalidSymbol: "an unexpected character (strings and names need double quotes; true, false and null are lower case)",
  InvalidNumberFormat: "a number JSON does not allow",
  PropertyNameExpected: "a field name in double quotes expected",
  ValueExpected: "a value expected",
  ColonExpected: "a colon expected after the field name",
  CommaExpected: "a comma expected between entries",
  CloseBraceExpected: "a closing } expected",
  CloseBracketExpected: "a closing ] expected",
  EndOfFileExpected: "more text after the end of the JSON object",
  InvalidCommentToken: "a comment (JSON has none)",
  UnexpectedEndOfComment: "a comment (JSON has none)",
  UnexpectedEndOfString: "a string without its closing double quote",
  UnexpectedEndOfNumber: "a number cut short",
  InvalidUnicode: "a \\u escape without four hex digits",
  InvalidEscapeCharacter: "a backslash escape JSON does not have",
  InvalidCharacter: "a control character (a tab or line break) inside a string",
};

/** Line and column (both from 1) of `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/**
 * Where and what the first syntax error of `text` is, worded for a person fixing it in an editor: `line 3, column 1:
 * a trailing comma after the last entry (JSON allows none)`, rather than `JSON.parse`'s "at position 40" (Node 20
 * gives no line). Undefined when `text` is valid JSON. The most common hand edit that breaks a file, a comma left
 * after the last entry, is named as such at the comma itself.
 */
export function describeJsonSyntaxError(text: string): string | undefined {
  if (text.trim() === "") return "the file is empty (write {} for no settings)";
  const { parse, printParseErrorCode } = jsonc();
  const errors: Jsonc.ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  const first = errors[0];
  if (first === undefined) return undefined;
  const comma = trailingCommaBefore(text, first.offset);
  if (comma !== undefined) {
    const { line, column } = lineAndColumn(text, comma);
    return `line ${line}, column ${column}: a trailing comma after the last entry (JSON allows none)`;
  }
  const { line, column } = lineAndColumn(text, first.offset);
  return `line ${line}, column ${column}: ${WORDING[printParseErrorCode(first.error) as keyof typeof WORDING]}`;
}

/** The offset of a comma that directly precedes a closing } or ] at `offset` (only whitespace between), if any. */
function trailingCommaBefore(text: string, offset: number): number | undefined {
  if (text[offset] !== "}" && text[offset] !== "]") return undefined;
  const comma = text.slice(0, offset).trimEnd().length - 1;
  return text[comma] === "," ? comma : undefined;
}
