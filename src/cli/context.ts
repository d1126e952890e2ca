import { ECHO_UPSTREAM, loadConfig, readEnvSecrets, type ConfigFlags, type GatewayConfig } from "../config/index.js";
import { CliError } from "../errors.js";
import { createOsKeyStore, keychainKeySource, type KeyStore } from "../keychain/index.js";
import { noKeySource, staticKeySource, type KeySource } from "../upstream/key-source.js";

/** What every command starts from: the resolved config and the key store, built in one place. */
export interface CommandContext {
  config: GatewayConfig;
  env: NodeJS.ProcessEnv;
  store: KeyStore;
}

export function createContext(flags: ConfigFlags = {}): CommandContext {
  const env = process.env;
  return { config: loadConfig({ flags, env }), env, store: createOsKeyStore({ env }) };
}

/** The keychain account of an upstream: its origin. */
export function keychainAccount(config: GatewayConfig): string {
  return new URL(config.upstream).origin;
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
    throw new CliError(`No upstream key is stored for ${account}.`, {
      hint: "Run `gateway login` to store one in the OS keychain, or set GATEWAY_API_KEY.",
    });
  }
  return keychainKeySource(ctx.store, account, stored);
}

/** Where the key comes from, for `status` and `doctor`; never the key. */
export async function describeKeySource(ctx: CommandContext): Promise<{ ok: boolean; text: string }> {
  if (ctx.config.upstream === ECHO_UPSTREAM) return { ok: true, text: "none needed (echo upstream)" };
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

/** The base URLs tools use, from the configured port. */
export function localUrls(port: number) {
  const root = `http://127.0.0.1:${port}`;
  return { root, openai: `${root}/v1` };
}
