import * as v from "valibot";
import { FORMAT_NAMES } from "../../formats/names.js";
import { KINDS, type KindName } from "../../kinds/index.js";
import { ECHO_UPSTREAM } from "../types.js";
import { UPSTREAM_NAME, upstreamUrl } from "./base-url.js";
import { keyHeader, staticHeaders } from "./headers.js";
import { budgets } from "./budgets.js";
import { kind, urlRequired } from "./kind.js";
import { fields, mapOf } from "./shapes.js";
import { integer, nonEmptyText, retries, segment, timeouts } from "./values.js";

const FORMATS_EXPECTED = `a non-empty array of distinct formats: ${FORMAT_NAMES.map((format) => `"${format}"`).join(", ")}`;
const formats = v.pipe(
  v.array(v.picklist(FORMAT_NAMES, FORMATS_EXPECTED), FORMATS_EXPECTED),
  v.minLength(1, FORMATS_EXPECTED),
  v.check((list) => new Set(list).size === list.length, FORMATS_EXPECTED),
);

/** An environment variable's name, as POSIX shells accept it. */
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A keychain label: what `gateway login <name> --label <label>` stores under. */
export const KEY_LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
/** One key of the gateway's: `keychain`, `keychain:<label>` or `env:<VAR>`. */
const isKeySource = (value: string): boolean =>
  value === "keychain" || (value.startsWith("keychain:") && KEY_LABEL.test(value.slice(9))) || (value.startsWith("env:") && VARIABLE.test(value.slice(4)));
const KEY_EXPECTED =
  '"keychain", "none", "client", "env:" and the name of an environment variable (e.g. "env:OPENROUTER_API_KEY"), "keychain:<label>", or an array of distinct keys that take turns (e.g. ["keychain:work", "env:SPARE_KEY"])';
/** `key`: kept as written here (messages show it so); `resolve-upstreams.ts` makes it an `UpstreamKey`. */
const key = v.custom<string | string[]>(
  (value) =>
    typeof value === "string"
      ? value === "none" || value === "client" || isKeySource(value)
      : Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string" && isKeySource(item)) && new Set(value).size === value.length,
  KEY_EXPECTED,
);

const MODELS = "an array of non-empty model ids, each exact or with * (any run of characters)";
const models = v.array(v.pipe(v.string(MODELS), v.trim(), v.nonEmpty(MODELS)), MODELS);

/** Names only: whether each exists, and is not the entry's own, is checked once every entry is known. */
const fallback = v.array(v.string("an array of upstream names"), "an array of upstream names");

/** One `upstreams` entry, as the file gives it (SPEC section 10, Upstreams); what it omits is filled in later. */
const upstreamEntry = v.pipe(
  fields(
    {
      kind: v.optional(kind),
      url: v.optional(upstreamUrl),
      formats: v.optional(formats),
      messagesSegment: v.optional(segment),
      geminiSegment: v.optional(segment),
      key: v.optional(key),
      models: v.optional(models),
      fallback: v.optional(fallback),
      reasoning: v.optional(v.picklist(["effort"], '"effort" (it accepts chat\'s reasoning_effort), or absent')),
      maxOutputTokens: v.optional(integer(1, Number.MAX_SAFE_INTEGER, "an integer of at least 1")),
      contextWindow: v.optional(integer(1, Number.MAX_SAFE_INTEGER, "an integer of at least 1 (tokens)")),
      headers: v.optional(staticHeaders),
      keyHeader: v.optional(keyHeader),
      retries: v.optional(retries),
      timeouts: v.optional(timeouts),
      anthropicVersion: v.optional(nonEmptyText),
      budgets: v.optional(budgets),
      team: v.optional(v.boolean("true (a team's gateway: its catalog is read, its budget shown, each request attributed) or false")),
    },
    'an object with a url or a kind, e.g. {"kind": "ollama"} or {"url": "https://gateway.example.com"}',
  ),
  // A kind with a usual address supplies the URL (SPEC 11); LiteLLM's and a generic server's are the user's own.
  v.forward(
    v.check((entry) => entry.url !== undefined || (entry.kind !== undefined && KINDS[entry.kind].defaults.url !== undefined), (issue) => urlRequired((issue.input as { kind?: KindName }).kind)),
    ["url"],
  ),
  v.forward(v.check((entry) => entry.url !== ECHO_UPSTREAM || entry.kind === undefined || entry.kind === "generic", '"generic", or absent: echo is a server of its own'), ["kind"]),
  // The built-in echo serves every format and needs no key: a file that says otherwise expects what never happens.
  v.forward(
    v.check((entry) => entry.url !== ECHO_UPSTREAM || entry.formats === undefined || entry.formats.length === FORMAT_NAMES.length, "every format, or absent: echo serves every format"),
    ["formats"],
  ),
  v.forward(v.check((entry) => entry.url !== ECHO_UPSTREAM || entry.key === undefined || entry.key === "none", '"none", or absent: echo needs no key'), ["key"]),
);

export type UpstreamEntry = v.InferOutput<typeof upstreamEntry>;

const NAME_EXPECTED = 'an object whose keys are upstream names: 1-32 characters of a-z, 0-9 and "-", not "default" or "echo"';
/** `upstreams`: names to entries, in file order (routing tries them in that order). */
export const upstreamEntries = mapOf(
  v.pipe(
    v.string(),
    v.regex(UPSTREAM_NAME, NAME_EXPECTED),
    v.check((name) => name !== "default" && name !== ECHO_UPSTREAM, NAME_EXPECTED),
  ),
  upstreamEntry,
  'an object from upstream names to upstreams, e.g. {"local": {"url": "http://localhost:11434", "key": "none"}}',
);
