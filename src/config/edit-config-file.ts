import { applyEdits, findNodeAtLocation, format, modify, parseTree, type FormattingOptions } from "jsonc-parser";
import { writePrivateFile } from "../files/private-files.js";
import { parseConfigText, readConfigText } from "./read-config-file.js";
import type { FileFields } from "./schemas/config-file.js";

/**
 * Edits of `config.json` by commands (`gateway add`, `gateway remove`): one `upstreams` entry set or removed, every
 * other byte of the file kept as it was (its fields, their order, spacing and indentation), as jsonc-parser's
 * `modify` edits JSON text in place. The new text is validated before it replaces the file (atomically, mode 0600:
 * SPEC section 8, Files), so a command never leaves a config the gateway would refuse.
 */

/** The indentation unit the file already uses (two spaces for a new file) and its line ends. */
function layoutOf(text: string): { unit: string; eol: string; options: FormattingOptions } {
  const indent = /\n([ \t]+)"/.exec(text)?.[1];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const unit = indent?.startsWith("\t") ? "\t" : " ".repeat(indent?.length ?? 2);
  return { unit, eol, options: unit === "\t" ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: unit.length, eol } };
}

/** `value` as a person lays out a config: an object's fields one per line, a list of plain values on one line. */
function render(value: unknown, unit: string, indent: string, eol: string): string {
  if (Array.isArray(value) && value.every((item) => typeof item !== "object" || item === null)) return `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const inner = indent + unit;
  const lines = Array.isArray(value)
    ? value.map((item) => `${inner}${render(item, unit, inner, eol)}`)
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${render(item, unit, inner, eol)}`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return lines.length ? `${open}${eol}${lines.join(`,${eol}`)}${eol}${indent}${close}` : `${open}${close}`;
}

/** No file, an empty one or `{}`: written anew. */
function isEmptyObject(text: string): boolean {
  if (!text.trim()) return true;
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === "object" && data !== null && !Array.isArray(data) && Object.keys(data).length === 0;
  } catch {
    return false;
  }
}

/** Stands for the entry while jsonc-parser places it; no config holds it. */
const PLACEHOLDER = "\u0000gateway-entry\u0000";

/**
 * `text` with `upstreams[name]` set to `entry`, or removed when `entry` is undefined. jsonc-parser finds where the
 * entry goes and adds the commas; the entry itself is laid out here, at its place's indentation, since formatting
 * the range jsonc-parser would choose rewrites the neighbours too. An `upstreams` left empty reads `{}`.
 */
export function withUpstreamEntry(text: string | undefined, name: string, entry: Record<string, unknown> | undefined): string {
  const { unit, eol, options } = layoutOf(text ?? "");
  if (text === undefined || isEmptyObject(text)) return entry === undefined ? (text ?? "") : `${render({ upstreams: { [name]: entry } }, unit, "", eol)}${eol}`;
  if (entry === undefined) return emptiedUpstreams(applyEdits(text, modify(text, ["upstreams", name], undefined, {})));
  const edits = modify(text, ["upstreams", name], PLACEHOLDER, {});
  const placed = applyEdits(text, edits);
  const inserted = edits[0]!;
  const formatted = applyEdits(placed, format(placed, { offset: inserted.offset, length: inserted.content.length }, options));
  const at = formatted.indexOf(JSON.stringify(PLACEHOLDER));
  // The entry's own line starts with its name: its indentation is the entry's.
  const indent = /^[ \t]*/.exec(formatted.slice(formatted.lastIndexOf("\n", at) + 1, at))![0];
  return `${formatted.slice(0, at)}${render(entry, unit, indent, eol)}${formatted.slice(at + JSON.stringify(PLACEHOLDER).length)}`;
}

/** The text with an `upstreams` object that has no entry left written `{}`, whatever white space removal left in it. */
function emptiedUpstreams(text: string): string {
  const node = findNodeAtLocation(parseTree(text)!, ["upstreams"]);
  if (!node || node.type !== "object" || node.children?.length) return text;
  return `${text.slice(0, node.offset)}{}${text.slice(node.offset + node.length)}`;
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
