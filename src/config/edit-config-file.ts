import { applyEdits, format, modify, type FormattingOptions } from "jsonc-parser";
import { writePrivateFile } from "../files/private-files.js";
import { parseConfigText, readConfigText } from "./read-config-file.js";
import type { FileFields } from "./schemas/config-file.js";

/**
 * Edits of `config.json` by commands (`gateway add`, `gateway remove`): one `upstreams` entry set or removed, every
 * other byte of the file kept as it was (its fields, their order, spacing and indentation), as jsonc-parser's
 * `modify` edits JSON text in place. The new text is validated before it replaces the file (atomically, mode 0600:
 * SPEC section 8, Files), so a command never leaves a config the gateway would refuse.
 */

/** The indentation the file already uses, so a new entry looks like its neighbours (two spaces for a new file). */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (indent?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

/** No file, an empty one or `{}`: written anew, laid out as a person would write it. */
function isEmptyObject(text: string): boolean {
  if (!text.trim()) return true;
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === "object" && data !== null && !Array.isArray(data) && Object.keys(data).length === 0;
  } catch {
    return false;
  }
}

/** `text` with `upstreams[name]` set to `entry`, or removed when `entry` is undefined; only that entry is formatted. */
export function withUpstreamEntry(text: string | undefined, name: string, entry: Record<string, unknown> | undefined): string {
  if (text === undefined || isEmptyObject(text)) return entry === undefined ? (text ?? "") : `${JSON.stringify({ upstreams: { [name]: entry } }, null, 2)}\n`;
  const edits = modify(text, ["upstreams", name], entry, {});
  const edited = applyEdits(text, edits);
  if (entry === undefined || edits.length === 0) return edited;
  // Format only what was inserted: formatting the whole range jsonc-parser would choose rewrites the neighbours too.
  const inserted = edits[0]!;
  return applyEdits(edited, format(edited, { offset: inserted.offset, length: inserted.content.length }, formattingOf(text)));
}

/** The config file as it is: its text (undefined: none yet) and its validated fields. */
export function readConfigForEdit(file: string): { text: string | undefined; fields: FileFields } {
  const text = readConfigText(file);
  return { text, fields: text === undefined ? {} : parseConfigText(text, file) };
}

/** Replaces the config file with `text` once it validates (else throws the config error, leaving the file alone). */
export function writeConfigText(file: string, text: string): FileFields {
  const fields = parseConfigText(text, file);
  writePrivateFile(file, text);
  return fields;
}
