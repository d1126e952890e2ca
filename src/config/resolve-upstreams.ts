import { KINDS } from "../kinds/index.js";
import { UPSTREAM_DEFAULTS } from "./defaults.js";
import type { Source } from "./issue-message.js";
import { checkFallbacks } from "./references.js";
import { baseWithoutV1, upstreamKind } from "./schemas/base-url.js";
import type { UpstreamEntry } from "./schemas/upstream-entry.js";
import { frozenMap } from "./schemas/shapes.js";
import { ECHO_UPSTREAM, type KeySpec, type Timeouts, type UpstreamConfig, type UpstreamKey } from "./types.js";

/** The top-level values every upstream starts from, after flags, environment, file and defaults. */
export interface TopLevel {
  /** `upstream` as the sources gave it (a name already checked), undefined when none did. */
  upstream: string | undefined;
  messagesSegment: string;
  geminiSegment: string;
  retries: number;
  timeouts: Readonly<Timeouts>;
  anthropicVersion: string | undefined;
}

export interface ResolvedUpstreams {
  upstreams: readonly UpstreamConfig[];
  defaultUpstream: string;
}

/**
 * Every upstream of SPEC section 10, resolved and frozen. `upstream` as a URL or `echo` (or unset with no
 * entries: echo) makes an upstream called `default`, listed first; as a name it picks that entry; unset with
 * entries, the first entry is the default. Fallback names are checked here, once it is known whether `default`
 * exists; they are the file's (`file`), whichever source made them wrong.
 */
export function resolveUpstreams(top: TopLevel, entries: Readonly<Record<string, UpstreamEntry>> | undefined, file: Source): ResolvedUpstreams {
  const named = Object.entries(entries ?? {});
  const target = top.upstream ?? (named.length === 0 ? ECHO_UPSTREAM : undefined);
  const made = target !== undefined && upstreamKind(target) !== "name" ? target : undefined;
  checkFallbacks(file, named, made !== undefined);
  const upstreams = named.map(([name, entry]) => fromEntry(name, entry, top));
  if (made !== undefined) upstreams.unshift(madeByUrl(made, top));
  return { upstreams: Object.freeze(upstreams), defaultUpstream: made !== undefined ? "default" : (target ?? named[0]![0]) };
}

/** `url` and `urlAsGiven` of an upstream whose config gives `given` (see `baseWithoutV1`). */
function baseOf(given: string): Pick<UpstreamConfig, "url" | "urlAsGiven"> {
  const url = baseWithoutV1(given);
  return { url, urlAsGiven: url === given ? undefined : given };
}

/** The upstream `upstream` makes from a URL or `echo`: every format and the top-level segments, as before section 10. */
function madeByUrl(url: string, top: TopLevel): UpstreamConfig {
  return Object.freeze({
    name: "default",
    kind: "generic",
    ...baseOf(url),
    formats: Object.freeze([...UPSTREAM_DEFAULTS.formats]),
    messagesSegment: top.messagesSegment,
    geminiSegment: top.geminiSegment,
    key: url === ECHO_UPSTREAM ? NO_KEY : UPSTREAM_DEFAULTS.key,
    models: Object.freeze([]),
    fallback: Object.freeze([]),
    reasoning: undefined,
    maxOutputTokens: undefined,
    contextWindow: undefined,
    headers: frozenMap<string>({}),
    keyHeader: undefined,
    retries: top.retries,
    timeouts: top.timeouts,
    anthropicVersion: top.anthropicVersion,
    budgets: NO_BUDGETS,
    team: false,
  });
}

const NO_BUDGETS = Object.freeze({});
const NO_KEY: UpstreamKey = Object.freeze({ kind: "none" });

/**
 * An entry with every field it leaves out taken from its kind (SPEC 11: the entry's own fields always win), then
 * from the top level (`retries`, `timeouts`, `anthropicVersion`). Without a kind it is `generic`: section 10's
 * defaults, exactly as before kinds existed.
 */
export function fromEntry(name: string, entry: UpstreamEntry, top: TopLevel): UpstreamConfig {
  const kind = KINDS[entry.kind ?? "generic"];
  const defaults = kind.defaults;
  // The schema refused an entry without a url whose kind has no usual address.
  const url = entry.url ?? defaults.url!;
  return Object.freeze({
    name,
    kind: kind.name,
    ...baseOf(url),
    // An echo entry that narrows its formats or asks for a key was refused by its schema: echo serves every format, keyless.
    formats: Object.freeze([...(entry.formats ?? (url === ECHO_UPSTREAM ? UPSTREAM_DEFAULTS.formats : defaults.formats))]),
    messagesSegment: entry.messagesSegment ?? defaults.messagesSegment,
    geminiSegment: entry.geminiSegment ?? defaults.geminiSegment,
    key: url === ECHO_UPSTREAM ? NO_KEY : upstreamKey(entry.key ?? defaults.key),
    models: Object.freeze([...(entry.models ?? [])]),
    fallback: Object.freeze([...(entry.fallback ?? [])]),
    reasoning: entry.reasoning ?? defaults.reasoning,
    maxOutputTokens: entry.maxOutputTokens ?? defaults.maxOutputTokens,
    contextWindow: entry.contextWindow,
    headers: entry.headers ?? frozenMap<string>({}),
    keyHeader: entry.keyHeader ?? defaults.keyHeader,
    retries: entry.retries ?? defaults.retries ?? top.retries,
    timeouts: Object.freeze({
      connectMs: entry.timeouts?.connectMs ?? top.timeouts.connectMs,
      firstByteMs: entry.timeouts?.firstByteMs ?? top.timeouts.firstByteMs,
      idleMs: entry.timeouts?.idleMs ?? top.timeouts.idleMs,
    }),
    anthropicVersion: entry.anthropicVersion ?? top.anthropicVersion,
    budgets: entry.budgets ?? NO_BUDGETS,
    team: entry.team ?? false,
  });
}

/** One key of the gateway's as written (`keychain`, `keychain:<label>`, `env:<VAR>`; the schema checked the form). */
function keySpec(key: string): KeySpec {
  if (key === "keychain") return UPSTREAM_DEFAULTS.key as KeySpec;
  if (key.startsWith("keychain:")) return Object.freeze({ kind: "keychain", label: key.slice("keychain:".length) });
  return Object.freeze({ kind: "env", variable: key.slice("env:".length) });
}

/** `key` as written: `none`, `client`, one key, or several taking turns (one in a list is just that key). */
function upstreamKey(key: string | readonly string[]): UpstreamKey {
  if (key === "none") return NO_KEY;
  if (key === "client") return CLIENT_KEY;
  if (typeof key === "string") return keySpec(key);
  return key.length === 1 ? keySpec(key[0]!) : Object.freeze({ kind: "several", keys: Object.freeze(key.map(keySpec)) });
}

const CLIENT_KEY: UpstreamKey = Object.freeze({ kind: "client" });
