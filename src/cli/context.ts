import { ECHO_UPSTREAM, loadConfig, readEnvSecrets, type ConfigFlags, type GatewayConfig } from "../config/index.js";
import { FLAG_SOURCE, validatePort } from "../config/validate-fields.js";
import { NoUpstreamKeyError } from "../errors/index.js";
import { createOsKeyStore, keychainKeySource, type KeyStore } from "../keychain/index.js";
import { loadLocalKey, peekLocalKey } from "../local-key/local-key.js";
import { noKeySource, staticKeySource, type KeySource } from "../upstream/key-source.js";
import { rememberSecret } from "./secrets.js";

/** What every command starts from: the resolved config and the key store, built in one place. */
export interface CommandContext {
  config: GatewayConfig;
  env: NodeJS.ProcessEnv;
  store: KeyStore;
}

export function createContext(flags: ConfigFlags = {}): CommandContext {
  const env = process.env;
  const secrets = readEnvSecrets(env);
  rememberSecret(secrets.upstreamKey);
  const config = loadConfig({ flags, env });
  // Commands that never use the local key still must not print it when an upstream echoes it back.
  rememberSecret(peekLocalKey(config.configDir, secrets.localKey));
  return { config, env, store: createOsKeyStore({ env }) };
}

/** The keychain account of an upstream: its origin. */
export function keychainAccount(config: GatewayConfig): string {
  return new URL(config.upstream).origin;
}

/** The local key (from `GATEWAY_LOCAL_KEY` or the `local-key` file), remembered for redaction. */
export function localKeyOf(ctx: CommandContext): string {
  const key = loadLocalKey(ctx.config.configDir, readEnvSecrets(ctx.env).localKey);
  rememberSecret(key);
  return key;
}

/**
 * The upstream key source for a config: none for echo, `GATEWAY_API_KEY` when set, else the keychain. Fails fast
 * with what to do when a real upstream has no key.
 */
export async function resolveKeySource(ctx: CommandContext): Promise<KeySource> {
  if (ctx.config.upstream === ECHO_UPSTREAM) return noKeySource;
  const fromEnv = readEnvSecrets(ctx.env).upstreamKey;
  if (fromEnv) return staticKeySource(fromEnv);
  const account = keychainAccount(ctx.config);
  const stored = await ctx.store.get(account);
  if (!stored) {
    throw new NoUpstreamKeyError(`No upstream key is stored for ${account}.`, {
      hint: "Run `gateway login` to store one in the OS keychain, or set GATEWAY_API_KEY.",
    });
  }
  rememberSecret(stored);
  return keychainKeySource(ctx.store, account, stored);
}

/** Where the key comes from, for `status` and `doctor`; never the key. `ok: undefined` when none is needed. */
export async function describeKeySource(ctx: CommandContext): Promise<{ ok: boolean | undefined; text: string }> {
  if (ctx.config.upstream === ECHO_UPSTREAM) return { ok: undefined, text: "none needed (echo upstream)" };
  if (readEnvSecrets(ctx.env).upstreamKey) return { ok: true, text: "from GATEWAY_API_KEY (overrides the keychain)" };
  try {
    const stored = await ctx.store.get(keychainAccount(ctx.config));
    return stored
      ? { ok: true, text: `stored in the OS keychain for ${keychainAccount(ctx.config)}` }
      : { ok: false, text: `none stored for ${keychainAccount(ctx.config)}: run \`gateway login\`` };
  } catch (error) {
    return { ok: false, text: (error as Error).message };
  }
}

/** The base URLs tools use, for a gateway on `port`. */
export function localUrls(port: number, config: GatewayConfig) {
  const root = `http://127.0.0.1:${port}`;
  return { root, openai: `${root}/v1`, anthropic: root, gemini: `${root}/${config.geminiSegment}` };
}

/** The `-p, --port <n>` every command that talks to a running gateway takes, as a number. */
export function portFlag(value: string | undefined): number | undefined {
  return value === undefined ? undefined : validatePort(FLAG_SOURCE, value, "--port");
}
