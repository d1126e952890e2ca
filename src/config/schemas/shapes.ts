import * as v from "valibot";
import { isRecord } from "../../parse-json.js";
import { closest } from "../closest.js";

/**
 * An object with exactly these fields. An unknown one is refused naming the closest known field (a typo in a
 * config file must not be silently ignored); a missing required one is refused by name.
 */
export function fields<const TEntries extends v.ObjectEntries>(entries: TEntries, expected: string) {
  // `$schema` (an editor's hint at the top of a file) is accepted but never suggested.
  const known = Object.keys(entries).filter((key) => key !== "$schema");
  return v.pipe(
    v.custom<Record<string, unknown>>(isRecord, expected),
    v.strictObject(entries, (issue) => {
      const key = issue.path?.[0]?.key;
      if (key === undefined) return expected;
      if (issue.expected !== "never") return "set: it is required";
      const near = closest(String(key), known);
      return `absent: it is not a known field${near ? ` (did you mean "${near}"?)` : ` (known fields: ${known.join(", ")})`}`;
    }),
  );
}

/** Keys valibot's `record` skips without a word, since they would reach Object.prototype. */
const PROTOTYPE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * An object from free-form keys to values, in file order. The keys `record` would drop silently are refused
 * instead, so nothing a file says is ignored.
 */
export function mapOf<TKey extends v.GenericSchema<string, string>, TValue extends v.GenericSchema>(key: TKey, value: TValue, expected: string) {
  return v.pipe(
    v.custom<Record<string, unknown>>(isRecord, expected),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const input = dataset.value as Record<string, unknown>;
      for (const name of Object.keys(input).filter((name) => PROTOTYPE_KEYS.has(name))) {
        addIssue({
          message: 'an object without the keys "__proto__", "constructor" and "prototype"',
          path: [{ type: "object", origin: "key", input, key: name, value: input[name] }],
        });
      }
    }),
    v.record(key, value),
  );
}

/** A frozen copy without a prototype, so a lookup of `constructor` finds nothing. */
export const frozenMap = <T>(entries: Record<string, T>): Readonly<Record<string, T>> =>
  Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
