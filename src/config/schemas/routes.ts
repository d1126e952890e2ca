import * as v from "valibot";
import { FORMAT_NAMES } from "../../formats/names.js";
import { KNOWN_CLIENT_NAMES } from "../../request-log/client-name.js";
import { isPattern } from "../../glob.js";
import { closest } from "../closest.js";
import type { RouteRule, TokenThreshold } from "../types.js";
import { fields } from "./shapes.js";
import { nonEmptyText } from "./values.js";

const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(", ");

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const NAME_EXPECTED = 'a rule name: 1-64 letters, digits, "-", "_" or ".", starting with a letter or digit';

const MODEL_SENT = "a non-empty model id (no *)";
const modelSent = v.pipe(nonEmptyText, v.check((id) => !isPattern(id), MODEL_SENT));

const CLIENTS = `one of ${quoted(KNOWN_CLIENT_NAMES)}, or a user-agent pattern with * (such as "OpenAI/JS*")`;
/** A coding tool by name, or a user-agent pattern; a name that is neither is refused naming the closest tool. */
const client = v.pipe(
  v.string(CLIENTS),
  v.check(
    (value) => isPattern(value) || (KNOWN_CLIENT_NAMES as readonly string[]).includes(value),
    (issue) => {
      const given = String(issue.input);
      const near = closest(given, KNOWN_CLIENT_NAMES) ?? (given ? KNOWN_CLIENT_NAMES.find((name) => name.startsWith(given.toLowerCase())) : undefined);
      return near ? `${CLIENTS} (did you mean "${near}"?)` : CLIENTS;
    },
  ),
);

const TAG = 'the NAME of a <gateway-route>NAME</gateway-route> tag: a non-empty string without "<" or ">"';
const tag = v.pipe(v.string(TAG), v.trim(), v.nonEmpty(TAG), v.check((name) => !/[<>]/.test(name), TAG));

const FLAG = "true or false";

const THRESHOLD = 'an integer of at least 1, or a share of the model\'s context window from "1%" to "100%"';
/** `minInputTokens`: a token count, or a whole percentage of the requested model's context window. */
const threshold = v.custom<TokenThreshold>(
  (value) => (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 100_000_000) || (typeof value === "string" && /^(100|[1-9][0-9]?)%$/.test(value)),
  THRESHOLD,
);

/** `when`: each condition SPEC 11 lists, all optional; an unknown one is refused naming the closest. */
const when = fields(
  {
    model: v.optional(nonEmptyText),
    format: v.optional(v.picklist(FORMAT_NAMES, `one of ${quoted(FORMAT_NAMES)}`)),
    client: v.optional(client),
    image: v.optional(v.boolean(FLAG)),
    minInputTokens: v.optional(threshold),
    thinking: v.optional(v.boolean(FLAG)),
    tools: v.optional(nonEmptyText),
    tag: v.optional(tag),
  },
  'an object of conditions, e.g. {"model": "claude-haiku-*"} or {"image": true}; {} holds for every request',
);

const rule = fields(
  {
    name: v.optional(v.pipe(v.string(NAME_EXPECTED), v.regex(NAME, NAME_EXPECTED))),
    when,
    to: v.pipe(v.string("the name of an upstream"), v.nonEmpty("the name of an upstream")),
    model: v.optional(modelSent),
  },
  'a rule such as {"name": "background", "when": {"model": "claude-haiku-*"}, "to": "local"}',
);

/**
 * `routes` (SPEC 11, Routes): an ordered array of rules. A rule without a name is `route-<n>`, n its position from
 * 1; names are unique. Whether each `to` names an upstream is checked once every upstream is known
 * (`references.ts`).
 */
export const routes = v.pipe(
  v.array(rule, 'an array of rules, e.g. [{"when": {"image": true}, "to": "vision"}]'),
  v.transform((list): RouteRule[] => list.map((entry, i) => Object.freeze({ name: entry.name ?? `route-${i + 1}`, when: Object.freeze({ ...entry.when }), to: entry.to, model: entry.model }))),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const seen = new Set<string>();
    dataset.value.forEach((entry, i) => {
      if (!seen.has(entry.name)) return void seen.add(entry.name);
      addIssue({
        message: `a name no other rule has (rules without a name are called route-<n>, n their position from 1)`,
        path: [{ type: "array", origin: "value", input: dataset.value, key: i, value: entry }, { type: "object", origin: "value", input: entry as unknown as Record<string, unknown>, key: "name", value: entry.name }],
      });
    });
  }),
  v.transform((list) => Object.freeze(list)),
);
