import type { BaseIssue, IssuePathItem } from "valibot";
import { ConfigError, type ConfigSource } from "../errors/index.js";

/** Where a value came from, for messages (a file path, `GATEWAY_PORT`, the command line) and for the exit code. */
export interface Source {
  label: string;
  kind: ConfigSource;
}

/** A URL with its user name and password (`https://user:pass@`) as `***`, the rest as written; anything else as it is. */
const withoutUserInfo = (text: string): string => text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, "$1***@");

/**
 * A rejected value as a message shows it, never a credential the user put in the wrong place: a URL's user name and
 * password, or a long string given as a `key` (a pasted key is the likeliest mistake there; a short typo such as
 * "keychian" is still shown).
 */
function shownValue(field: string, value: unknown): string {
  if (value === undefined) return "nothing";
  const keyField = /(^|\.)key$/.test(field);
  // A list of keys (SPEC 11) shows its entries that name a key, and none that may be one.
  if (keyField && Array.isArray(value)) return `[${value.map((item) => (typeof item === "string" && item.length >= 12 && !/^(env|keychain):/.test(item) ? "(a value not shown)" : JSON.stringify(item))).join(",")}]`;
  if (typeof value !== "string") return JSON.stringify(value);
  if (keyField && value.length >= 12) return "a value not shown here, since it may be a key";
  return JSON.stringify(withoutUserInfo(value));
}

/**
 * The one message of an invalid value: `Invalid configuration in <source>: "<field>" must be <expected> (got
 * <value>).` Flags are usage (exit 2), a file or a variable a failure (exit 1); the hint says which fix applies.
 */
export function invalidConfig(source: Source, field: string, expected: string, value: unknown): ConfigError {
  const shown = shownValue(field, value);
  return new ConfigError(`Invalid configuration in ${source.label}: "${field}" must be ${expected} (got ${shown}).`, source.kind, {
    hint:
      source.kind === "flag"
        ? "Fix the value; `gateway <command> --help` lists every option."
        : "Fix the value, or remove it to use the default. The README's Configuration section and docs/configuration.md list every field.",
  });
}

/** Maps whose keys are free-form (model ids, header names): written `models["gpt-4o"]`, as users write them. */
const MAP_FIELDS = new Set(["models", "headers", "prices"]);

/**
 * The first of `issues` as `invalidConfig`. Every schema's message is the "expected" phrase; the field comes from
 * the issue's path and the value shown is the one given, before any trimming or conversion.
 */
export function issueError(source: Source, issues: readonly BaseIssue<unknown>[], rootField: string, rootValue: unknown): ConfigError {
  const issue = firstInFileOrder(issues);
  const path = issue.path ?? [];
  const last = path.at(-1);
  // A record's key that its key schema refused names the record and shows the key; a strict object's unknown or
  // missing field (also a "key" issue) names the field itself and shows its value.
  const badKey = last?.origin === "key" && issue.type !== "strict_object";
  const field = fieldName(badKey ? path.slice(0, -1) : path) || rootField;
  return invalidConfig(source, field, issue.message, last === undefined ? rootValue : badKey ? last.key : last.value);
}

/** Arrays whose items are named by their position (`routes[2].to`): a rule is found by it. */
const INDEXED_ARRAYS = new Set(["routes"]);

/** `upstreams.local.url`, `timeouts.idleMs`, `models["gpt-4o"]`, `routes[2].to`; other array items are named by their array. */
function fieldName(path: readonly IssuePathItem[]): string {
  let name = "";
  let parent: unknown;
  for (const item of path) {
    if (item.type === "array") {
      if (INDEXED_ARRAYS.has(String(parent))) name += `[${String(item.key)}]`;
      continue;
    }
    const key = String(item.key);
    name += MAP_FIELDS.has(String(parent)) ? `[${JSON.stringify(key)}]` : name ? `.${key}` : key;
    parent = item.key;
  }
  return name;
}

/** The issue a person reading the file from the top meets first (valibot reports in schema order). */
function firstInFileOrder(issues: readonly BaseIssue<unknown>[]): BaseIssue<unknown> {
  const position = (issue: BaseIssue<unknown>) =>
    (issue.path ?? []).map((item) =>
      typeof item.input === "object" && item.input !== null && !Array.isArray(item.input) ? Object.keys(item.input).indexOf(String(item.key)) : Number(item.key),
    );
  const before = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
    return false;
  };
  return issues.reduce((first, issue) => (before(position(issue), position(first)) ? issue : first));
}
