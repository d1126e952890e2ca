import { keySpecs, loadConfig, readEnvSecrets, type ConfigFlags, type GatewayConfig } from "../config/index.js";
import { FLAG_SOURCE, validatePort } from "../config/validate-fields.js";
import { createOsKeyStore, type KeyStore } from "../keychain/index.js";
import { loadLocalKey, peekLocalKey } from "../local-key/local-key.js";
import { ConfigError } from "../errors/index.js";
import { rememberSecret } from "./secrets.js";
import { log } from "./terminal.js";

/** What every command starts from: the resolved config and the key store, built in one place. */
export interface CommandContext {
  config: GatewayConfig;
  env: NodeJS.ProcessEnv;
  store: KeyStore;
  /** Why config.json was left unread, for a command that goes on without it (`fileProblems: "warn"`). */
  fileProblem?: ConfigError;
}

export interface ContextOptions {
  /**
   * `warn`: a config.json that cannot be used is said once and then treated as absent. For the commands that need
   * only the running gateway's record (`stop`, `status`, `logs`): a typo in the file must not keep the user from
   * stopping the gateway that still runs on the old one.
   */
  fileProblems?: "refuse" | "warn";
}

export function createContext(flags: ConfigFlags = {}, options: ContextOptions = {}): CommandContext {
  const env = process.env;
  const secrets = readEnvSecrets(env);
  rememberSecret(secrets.upstreamKey);
  const { config, fileProblem } = options.fileProblems === "warn" ? loadPastFileProblems(flags, env) : { config: loadConfig({ flags, env }), fileProblem: undefined };
  // Commands that never use the local key still must not print it when an upstream echoes it back.
  rememberSecret(peekLocalKey(config.configDir, secrets.localKey));
  for (const spec of config.upstreams.flatMap((upstream) => keySpecs(upstream.key))) if (spec.kind === "env") rememberSecret(env[spec.variable]?.trim());
  return { config, env, store: createOsKeyStore({ env }), ...(fileProblem ? { fileProblem } : {}) };
}

/** The config, or (when config.json is what is wrong) the config without the file, and the file's problem said as a warning. */
function loadPastFileProblems(flags: ConfigFlags, env: NodeJS.ProcessEnv): { config: GatewayConfig; fileProblem?: ConfigError } {
  try {
    return { config: loadConfig({ flags, env }) };
  } catch (error) {
    if (!(error instanceof ConfigError) || error.source !== "file") throw error;
    log.warn(`${error.message} Going on without it: this command needs only the running gateway's record.`);
    if (error.hint) log.info(error.hint);
    return { config: loadConfig({ flags, env, withoutFile: true }), fileProblem: error };
  }
}

/** The local key (from `GATEWAY_LOCAL_KEY` or the `local-key` file), remembered for redaction. */
export function localKeyOf(ctx: CommandContext): string {
  const key = loadLocalKey(ctx.config.configDir, readEnvSecrets(ctx.env).localKey);
  rememberSecret(key);
  return key;
}

/** The base URLs tools use, for a gateway on `port`. An empty Gemini segment serves the family at the bare origin. */
export function localUrls(port: number, config: GatewayConfig) {
  const root = `http://127.0.0.1:${port}`;
  return { root, openai: `${root}/v1`, anthropic: root, gemini: config.geminiSegment ? `${root}/${config.geminiSegment}` : root };
}

/** The `-p, --port <n>` every command that talks to a running gateway takes, as a number. */
export function portFlag(value: string | undefined): number | undefined {
  return value === undefined ? undefined : validatePort(FLAG_SOURCE, value, "--port");
}
