import type { Json } from "./hub.js";
import { JsonObjectScan } from "./json-object-scan.js";
import { parseJsonObject, isRecord } from "../parse-json.js";

/**
 * Tool-call arguments, one rule for every client format, whole replies and streams alike. Arguments that are one JSON
 * object reach the client as that object (the text as it came, where the format wants text). Arguments that are one
 * only after an unambiguous repair (`json-object-scan.ts`: raw control characters in strings escaped, a comma before
 * a closing bracket or at the end dropped, a Markdown fence around the whole dropped, brackets missing at the end
 * after a complete value closed) reach it repaired. Anything else (`{not json`, `[1,2]`, `"x"`, single quotes,
 * `True`, a string or a key cut short, text after the object) reaches it as `{"INVALID_JSON": "<the text as it
 * came>"}`: an object every client can parse, which invents no key or value of the tool's and shows the model what it
 * wrote, in the shape Anthropic's documentation gives for passing invalid tool JSON back to the model. No arguments at
 * all are `{}` (a tool without parameters). A call cut by the output limit is not repaired: see `finish_reason`
 * `length` in each format's closing.
 */

const INVALID_JSON = "INVALID_JSON";

/** The wrapper of arguments that are not an object, as JSON text. */
const invalidJson = (raw: string): string => JSON.stringify({ [INVALID_JSON]: raw });

/** Arguments by the rule above: the object, and its JSON text (the upstream's own bytes when they parse as they are). */
export function readToolArguments(value: string | Json | undefined): { object: Json; json: string } {
  if (isRecord(value)) return { object: value, json: JSON.stringify(value) };
  const raw = value ?? "";
  const parsed = parseJsonObject(raw);
  if (parsed) return { object: parsed, json: raw };
  const scan = new JsonObjectScan();
  const head = scan.push(raw);
  const end = scan.end();
  if (end.whole) {
    const repaired = parseJsonObject(head + end.rest);
    if (repaired) return { object: repaired, json: head + end.rest };
  }
  const json = invalidJson(raw);
  return { object: JSON.parse(json) as Json, json };
}

/**
 * The same rule for arguments that stream as pieces (a messages client's `input_json_delta` events, which cannot be
 * taken back once sent): each piece goes out as it came, the repairs' escapes and drops aside, holding back only the
 * few characters that could not be closed yet without inventing a value; `end` completes the object. When the text
 * turns out not to be an object after a valid start, `end` closes what went out (a string cut at the last piece, the
 * brackets open) and puts the whole text beside it under `INVALID_JSON`, so the pieces still join into an object that
 * shows the truth.
 */
export class ArgumentWriter {
  readonly #scan = new JsonObjectScan();

  /** What of `piece` goes out now. */
  push(piece: string): string {
    return this.#scan.push(piece);
  }

  /** The characters held back, as they came (a reply cut by the output limit ends its unfinished call with them). */
  held(): string {
    return this.#scan.held();
  }

  /** What completes the pieces sent, given the call's whole argument text as it came. */
  end(raw: string): string {
    const end = this.#scan.end();
    if (end.whole) return end.rest;
    if (!end.opened) return invalidJson(raw);
    return `${end.close}${end.member ? "," : ""}"${INVALID_JSON}":${JSON.stringify(raw)}}`;
  }
}

/** Whether `text` is one whole JSON object: a tool call's arguments that no later piece can add to. */
export const parsesAsObject = (text: string): boolean => parseJsonObject(text) !== undefined;

/** Arguments as JSON text, whatever the upstream sent (some send an object in place of the string). */
export const argumentsText = (value: string | Json | undefined): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));
