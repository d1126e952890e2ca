import { ECHO_UPSTREAM, readEnvSecrets, type UpstreamConfig } from "../config/index.js";
import { closest } from "../config/closest.js";
import { NoUpstreamKeyError, UsageError } from "../errors/index.js";
import { keychainKeySource } from "../keychain/index.js";
import { envKeySource, noKeySource, staticKeySource, type KeySource } from "../upstream/key-source.js";
import type { UpstreamKeyState } from "../upstream/key-states.js";
import type { KeySourceFor } from "../upstream/upstream-set.js";
import type { CommandContext } from "./context.js";
import { rememberSecret } from "./secrets.js";

/** The keychain account of an upstream: its origin (two upstreams with one origin share their entry). */
export const keychainAccount = (upstream: UpstreamConfig): string => new URL(upstream.url).origin;

/** How an upstream is logged in to: `gateway login`, or `gateway login <name>` for the others. */
export const loginCommand = (ctx: CommandContext, upstream: UpstreamConfig): string =>
  upstream.name === ctx.config.defaultUpstream ? "gateway login" : `gateway login ${upstream.name}`;

/**
 * How to give an upstream the key it lacks, as one instruction: a variable for `key: "env:<VAR>"` (`gateway login`
 * would only say that upstream needs no login), else `gateway login`. `valid` asks for a key it will accept.
 */
export function keyFix(ctx: CommandContext, upstream: UpstreamConfig, valid = false): string {
  if (upstream.key.kind === "env") return `Set ${upstream.key.variable}${valid ? " to a valid key" : ""} in the gateway's environment and restart it.`;
  return `Run \`${loginCommand(ctx, upstream)}\`${valid ? " with a valid key" : upstream.name === ctx.config.defaultUpstream ? ", or set GATEWAY_API_KEY" : ""}.`;
}

/** What an upstream's key is, for `status` and `doctor`: where it comes from, and whether it is there. */
export interface KeyState {
  /** `true` stored or set, `false` missing, `undefined` not needed. */
  ok: boolean | undefined;
  text: string;
}

/**
 * Where each upstream's key comes from (SPEC sections 8 and 10): none for echo and `key: "none"`; the variable for
 * `env:<VAR>`; for the default upstream `GATEWAY_API_KEY` when set; else the OS keychain, account = the origin.
 * `initial` keys were read already (at start-up) and are trusted for one cache period.
 */
export function keySources(ctx: CommandContext, initial: ReadonlyMap<string, string> = new Map(), ttlMs?: number): KeySourceFor {
  const fromEnv = readEnvSecrets(ctx.env).upstreamKey;
  return (upstream) => {
    if (upstream.url === ECHO_UPSTREAM || upstream.key.kind === "none") return noKeySource;
    if (upstream.key.kind === "env") return envKeySource(upstream.key.variable, ctx.env);
    const isDefault = upstream.name === ctx.config.defaultUpstream;
    if (isDefault && fromEnv) return staticKeySource(fromEnv);
    const account = keychainAccount(upstream);
    return keychainKeySource(ctx.store, account, { initial: initial.get(account), ttlMs, login: loginCommand(ctx, upstream), envAlternative: isDefault });
  };
}

/**
 * The key sources of a gateway about to start, with every keychain key read once (and remembered for redaction).
 * Fails fast, with what to do, only when the default upstream has no key (SPEC 10, Details): another upstream without
 * one answers 503 (or falls back) until the user stores it.
 */
export async function startupKeySources(ctx: CommandContext): Promise<KeySourceFor> {
  const sourceFor = keySources(ctx);
  const initial = new Map<string, string>();
  for (const upstream of ctx.config.upstreams) {
    const source = sourceFor(upstream);
    const isDefault = upstream.name === ctx.config.defaultUpstream;
    if (source.kind === "none") continue;
    // The keychain itself, not its key source: a running gateway's source answers "no key" when the keychain fails
    // (it keeps serving its last key), and a start that cannot reach the keychain must say so (SPEC 6 and 8).
    const read = source.kind === "keychain" ? () => ctx.store.get(keychainAccount(upstream)) : () => source.get();
    const key = isDefault ? await read() : await read().catch(() => undefined);
    rememberSecret(key);
    if (key !== undefined && source.kind === "keychain") initial.set(keychainAccount(upstream), key);
    if (key === undefined && isDefault) {
      if (source.kind === "env") throw source.missing(upstream.name);
      throw new NoUpstreamKeyError(upstream.name, `No upstream key is stored for ${keychainAccount(upstream)}.`, {
        hint: `Run \`${loginCommand(ctx, upstream)}\` to store one in the OS keychain, or set GATEWAY_API_KEY.`,
      });
    }
  }
  return keySources(ctx, initial);
}

const notNeeded = (upstream: UpstreamConfig): KeyState => ({ ok: undefined, text: upstream.url === ECHO_UPSTREAM ? "none needed (echo upstream)" : "none needed (key: none)" });
const noneStored = (ctx: CommandContext, upstream: UpstreamConfig): KeyState => ({ ok: false, text: `none stored for ${keychainAccount(upstream)}: run \`${loginCommand(ctx, upstream)}\`` });

/**
 * Where an upstream's key comes from and whether it is there, as this command finds it (its environment, its
 * keychain): for when no gateway runs. Never the key.
 */
export async function describeKey(ctx: CommandContext, upstream: UpstreamConfig): Promise<KeyState> {
  const source: KeySource = keySources(ctx)(upstream);
  if (source.kind === "none") return notNeeded(upstream);
  if (upstream.key.kind === "env") return { ok: (await source.get()) !== undefined, text: source.describe };
  if (source.kind === "env") return { ok: true, text: source.describe };
  // The store itself, not the key source: a source keeps serving its last key when the keychain fails, and a
  // keychain out of reach is a different problem from no key stored.
  try {
    return (await ctx.store.get(keychainAccount(upstream))) !== undefined ? { ok: true, text: source.describe } : noneStored(ctx, upstream);
  } catch (error) {
    return { ok: false, text: (error as Error).message };
  }
}

/** The same, as the running gateway said it finds the key (`/ui/api/upstreams`): what its requests meet. */
export function describeGatewayKey(ctx: CommandContext, upstream: UpstreamConfig, { key }: UpstreamKeyState): KeyState {
  if (key.source === "none") return notNeeded(upstream);
  if (key.present) return { ok: true, text: key.describe };
  return key.source === "keychain" ? noneStored(ctx, upstream) : { ok: false, text: key.describe };
}

/** The upstream called `name`; an unknown name is usage (exit 2), naming the closest known one. */
export function namedUpstream(ctx: CommandContext, name: string): UpstreamConfig {
  const found = ctx.config.upstreams.find((upstream) => upstream.name === name);
  if (found) return found;
  const names = ctx.config.upstreams.map((upstream) => upstream.name);
  const near = closest(name, names);
  throw new UsageError(`No upstream is called "${name}".${near ? ` Did you mean "${near}"?` : ""}`, { hint: `The upstreams are: ${names.join(", ")} (\`gateway status\` lists them).` });
}
