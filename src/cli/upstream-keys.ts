import { ECHO_UPSTREAM, keySpecName, keySpecs, readEnvSecrets, type KeySpec, type UpstreamConfig } from "../config/index.js";
import { closest } from "../config/closest.js";
import { isLoopbackHost } from "../config/loopback.js";
import { KEY_LABEL } from "../config/schemas/upstream-entry.js";
import { NoUpstreamKeyError, UsageError } from "../errors/index.js";
import { keychainKeySource } from "../keychain/index.js";
import { KeyRing } from "../upstream/key-ring.js";
import { clientKeySource, envKeySource, noKeySource, staticKeySource, type KeySource } from "../upstream/key-source.js";
import type { KeyState as GatewayKeyState, UpstreamKeyState } from "../upstream/key-states.js";
import type { KeySourceFor } from "../upstream/upstream-set.js";
import type { CommandContext } from "./context.js";
import { rememberSecret } from "./secrets.js";
import { log } from "./terminal.js";

/**
 * The keychain account of an upstream's key: its origin (two upstreams with one origin share their entry); a labelled
 * key's is `<origin>#<label>`, which no origin can be, so it never meets the unlabelled entry (SPEC 11, Several keys).
 */
export const keychainAccount = (upstream: UpstreamConfig, label?: string): string => `${new URL(upstream.url).origin}${label === undefined ? "" : `#${label}`}`;

/** How an upstream's key is logged in to: `gateway login`, or `gateway login <name>` for the others, `--label` for a labelled one. */
export const loginCommand = (ctx: CommandContext, upstream: UpstreamConfig, label?: string): string =>
  `${upstream.name === ctx.config.defaultUpstream ? "gateway login" : `gateway login ${upstream.name}`}${label === undefined ? "" : ` --label ${label}`}`;

/** A `--label` as given: checked as the config checks `keychain:<label>` (a bad one is usage, exit 2). */
export function keyLabel(label: string | undefined): string | undefined {
  if (label === undefined || KEY_LABEL.test(label)) return label;
  throw new UsageError(`--label "${label}" is not a key label.`, { hint: 'A label is 1-32 letters, digits, ".", "_" or "-", starting with a letter or digit, as in "key": ["keychain:work", "keychain:spare"].' });
}

/** Where an upstream's credential comes from, in words, for one that keeps none in the keychain: `sends no key (key: "none")`. */
export function keyWords(upstream: UpstreamConfig): string {
  const { key } = upstream;
  if (key.kind === "none") return 'sends no key (key: "none")';
  if (key.kind === "client") return 'sends the client\'s own credential (key: "client")';
  const names = keySpecs(key).map(keySpecName);
  return `takes its key from ${names.map((name) => (name.startsWith("env:") ? `$${name.slice(4)}` : name)).join(", ")} (key: ${JSON.stringify(names.length === 1 ? names[0] : names)})`;
}

/** The keys of the gateway's an upstream sends (none for echo, `none` and `client`). */
const specsOf = (upstream: UpstreamConfig): readonly KeySpec[] => (upstream.url === ECHO_UPSTREAM ? [] : keySpecs(upstream.key));

/**
 * How to give an upstream the key it lacks, as one instruction per key: a variable for `env:<VAR>` (`gateway login`
 * would only say that upstream needs no login), else `gateway login` (with its `--label`). `valid` asks for a key it
 * will accept.
 */
export function keyFix(ctx: CommandContext, upstream: UpstreamConfig, valid = false, specs: readonly KeySpec[] = specsOf(upstream)): string {
  return specs
    .map((spec) => {
      if (spec.kind === "env") return `Set ${spec.variable}${valid ? " to a valid key" : ""} in the gateway's environment and restart it.`;
      const envToo = !valid && upstream.name === ctx.config.defaultUpstream && spec.label === undefined;
      return `Run \`${loginCommand(ctx, upstream, spec.label)}\`${valid ? " with a valid key" : envToo ? ", or set GATEWAY_API_KEY" : ""}.`;
    })
    .join(" ");
}

/** What an upstream's key is, for `status` and `doctor`: where it comes from, and whether it is there. */
export interface KeyState {
  /** `true` stored or set (with several keys: at least one), `false` missing, `undefined` not needed. */
  ok: boolean | undefined;
  text: string;
  /** Each key, in turn order, when it has several (SPEC 11: `status` and `doctor` show each). */
  keys?: { name: string; ok: boolean; text: string }[];
}

/** The key source of one of an upstream's keys; for the default upstream, `GATEWAY_API_KEY` stands in for its unlabelled keychain key. */
function sourceFor(ctx: CommandContext, upstream: UpstreamConfig, spec: KeySpec, fromEnv: string | undefined, initial: ReadonlyMap<string, string>, ttlMs: number | undefined): KeySource {
  if (spec.kind === "env") return envKeySource(spec.variable, ctx.env);
  const isDefault = upstream.name === ctx.config.defaultUpstream && spec.label === undefined;
  if (isDefault && fromEnv) return staticKeySource(fromEnv);
  const account = keychainAccount(upstream, spec.label);
  return keychainKeySource(ctx.store, account, { initial: initial.get(account), ttlMs, login: loginCommand(ctx, upstream, spec.label), envAlternative: isDefault, name: keySpecName(spec) });
}

/**
 * Where each upstream's key comes from (SPEC sections 8, 10 and 11): none for echo and `key: "none"`; the client's
 * own for `key: "client"`; else each of its keys: the variable for `env:<VAR>`; for the default upstream
 * `GATEWAY_API_KEY` when set; else the OS keychain (account = the origin, `#<label>` for a labelled key). `initial`
 * keys were read already (at start-up) and are trusted for one cache period.
 */
export function keySources(ctx: CommandContext, initial: ReadonlyMap<string, string> = new Map(), ttlMs?: number): KeySourceFor {
  const fromEnv = readEnvSecrets(ctx.env).upstreamKey;
  return (upstream) => {
    if (upstream.key.kind === "client") return clientKeySource;
    const specs = specsOf(upstream);
    if (specs.length === 0) return noKeySource;
    const sources = specs.map((spec) => sourceFor(ctx, upstream, spec, fromEnv, initial, ttlMs));
    return sources.length === 1 ? sources[0]! : sources;
  };
}

/** An upstream's key sources, in turn order, as `keySources` makes them (one for `none` and `client`). */
export const sourcesOf = (ctx: CommandContext, upstream: UpstreamConfig): KeySource[] => [keySources(ctx)(upstream)].flat();

/**
 * The key sources of a gateway about to start, with every keychain key read once (and remembered for redaction).
 * Fails fast, with what to do, only when the default upstream has no key at all (SPEC 10, Details): another upstream
 * without one answers 503 (or falls back) until the user stores it. A default upstream on this machine (a loopback
 * address: `gateway start --upstream http://127.0.0.1:11434`) whose keychain key is not there is sent none instead,
 * as local servers mostly want none; this is said, with the login that gives it one (docs/configuration.md).
 */
export async function startupKeySources(ctx: CommandContext): Promise<KeySourceFor> {
  const initial = new Map<string, string>();
  const keyless = new Set<string>();
  for (const upstream of ctx.config.upstreams) {
    const specs = specsOf(upstream);
    const sources = sourcesOf(ctx, upstream);
    const isDefault = upstream.name === ctx.config.defaultUpstream;
    let found = false;
    let failure: unknown;
    for (const [i, spec] of specs.entries()) {
      const source = sources[i]!;
      const account = keychainAccount(upstream, spec.kind === "keychain" ? spec.label : undefined);
      // The keychain itself, not its key source: a running gateway's source answers "no key" when the keychain fails
      // (it keeps serving its last key), and a start that cannot reach the keychain must say so (SPEC 6 and 8).
      const read = source.kind === "keychain" ? () => ctx.store.get(account) : () => source.get();
      const key = await read().catch((error: unknown) => {
        failure ??= error;
        return undefined;
      });
      rememberSecret(key);
      if (key !== undefined && source.kind === "keychain") initial.set(account, key);
      found ||= key !== undefined;
    }
    if (found || !isDefault || specs.length === 0) continue;
    if (specs.length === 1 && sources[0]!.kind === "keychain" && isLoopbackHost(new URL(upstream.url).hostname)) {
      keyless.add(upstream.name);
      log.info(`No key is stored for ${keychainAccount(upstream)}, a server on this machine: requests go to it without one. If it needs one, run \`${loginCommand(ctx, upstream)}\` and start the gateway again.`);
      continue;
    }
    if (failure !== undefined) throw failure;
    if (specs.length > 1) throw new KeyRing(sources).missing(upstream.name);
    if (sources[0]!.kind === "env") throw sources[0]!.missing(upstream.name);
    throw new NoUpstreamKeyError(upstream.name, `No upstream key is stored for ${keychainAccount(upstream)}.`, {
      hint: `Run \`${loginCommand(ctx, upstream)}\` to store one in the OS keychain, or set GATEWAY_API_KEY.`,
    });
  }
  const sourceFor = keySources(ctx, initial);
  return keyless.size === 0 ? sourceFor : (upstream) => (keyless.has(upstream.name) ? noKeySource : sourceFor(upstream));
}

const notNeeded = (upstream: UpstreamConfig): KeyState => ({
  ok: undefined,
  text: upstream.url === ECHO_UPSTREAM ? "none needed (echo upstream)" : upstream.key.kind === "client" ? "the client's own (key: client): the gateway sends none" : "none needed (key: none)",
});
const noneStored = (ctx: CommandContext, upstream: UpstreamConfig, label?: string): string => `none stored for ${keychainAccount(upstream, label)}: run \`${loginCommand(ctx, upstream, label)}\``;

/** One key's state as this command finds it (its environment, its keychain). */
async function describeSource(ctx: CommandContext, upstream: UpstreamConfig, spec: KeySpec, source: KeySource): Promise<{ ok: boolean; text: string }> {
  if (spec.kind === "env") return { ok: (await source.get()) !== undefined, text: source.describe };
  if (source.kind === "env") return { ok: true, text: source.describe };
  // The store itself, not the key source: a source keeps serving its last key when the keychain fails, and a
  // keychain out of reach is a different problem from no key stored.
  try {
    return (await ctx.store.get(keychainAccount(upstream, spec.label))) !== undefined ? { ok: true, text: source.describe } : { ok: false, text: noneStored(ctx, upstream, spec.label) };
  } catch (error) {
    return { ok: false, text: (error as Error).message };
  }
}

/** Several keys as one state: usable while one is there, each named with its own state. */
function combined(keys: { name: string; ok: boolean; text: string }[]): KeyState {
  const present = keys.filter((key) => key.ok).length;
  return { ok: present > 0, text: `${present} of ${keys.length} keys available, taking turns`, keys };
}

/**
 * Where an upstream's key comes from and whether it is there, as this command finds it (its environment, its
 * keychain): for when no gateway runs. Never the key.
 */
export async function describeKey(ctx: CommandContext, upstream: UpstreamConfig): Promise<KeyState> {
  const specs = specsOf(upstream);
  if (specs.length === 0) return notNeeded(upstream);
  const sources = sourcesOf(ctx, upstream);
  const states = await Promise.all(specs.map((spec, i) => describeSource(ctx, upstream, spec, sources[i]!)));
  if (specs.length === 1) return states[0]!;
  return combined(states.map((state, i) => ({ name: keySpecName(specs[i]!), ...state })));
}

/** The same, as the running gateway said it finds the keys (`/ui/api/upstreams`): what its requests meet. */
export function describeGatewayKey(ctx: CommandContext, upstream: UpstreamConfig, state: UpstreamKeyState): KeyState {
  const specs = specsOf(upstream);
  const one = (key: GatewayKeyState, spec: KeySpec | undefined): { ok: boolean; text: string } => {
    if (key.present) return { ok: true, text: key.describe };
    return { ok: false, text: key.source === "keychain" ? noneStored(ctx, upstream, spec?.kind === "keychain" ? spec.label : undefined) : key.describe };
  };
  if (state.key.source === "none" || state.key.source === "client") return notNeeded(upstream);
  if (!state.keys) return one(state.key, specs[0]);
  return combined(
    state.keys.map((key, i) => {
      const own = one(key, specs[i]);
      return { name: key.name, ok: own.ok, text: key.restingSeconds > 0 ? `${own.text}, resting ${key.restingSeconds} s after a refusal` : own.text };
    }),
  );
}

/** The upstream called `name`; an unknown name is usage (exit 2), naming the closest known one. */
export function namedUpstream(ctx: CommandContext, name: string): UpstreamConfig {
  const found = ctx.config.upstreams.find((upstream) => upstream.name === name);
  if (found) return found;
  const names = ctx.config.upstreams.map((upstream) => upstream.name);
  const near = closest(name, names);
  throw new UsageError(`No upstream is called "${name}".${near ? ` Did you mean "${near}"?` : ""}`, { hint: `The upstreams are: ${names.join(", ")} (\`gateway status\` lists them).` });
}
