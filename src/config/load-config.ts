import { join } from "node:path";
import { AppError, ConfigError } from "../errors/index.js";
import { checkPrivateDir, readRegularFile } from "../files/private-files.js";
import { DEFAULTS } from "./defaults.js";
import { resolveConfigDir } from "./config-dir.js";
import { resolveStateDir } from "./state-dir.js";
import type { EnvSecrets, GatewayConfig } from "./types.js";
import {
  FLAG_SOURCE,
  envSource,
  fileSource,
  validateCapture,
  validateFileFields,
  validateHost,
  validateOrigin,
  validatePort,
  validateSegment,
  validateUpstream,
  type FileFields,
} from "./validate-fields.js";

/** Values given on the command line; raw strings are validated here like every other source. */
export interface ConfigFlags {
  upstream?: string | undefined;
  messagesSegment?: string | undefined;
  geminiSegment?: string | undefined;
  port?: string | number | undefined;
  host?: string | undefined;
  cors?: readonly string[] | undefined;
  capture?: string | undefined;
}

export interface LoadConfigOptions {
  flags?: ConfigFlags;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** The file name inside the config directory. */
export const CONFIG_FILE_NAME = "config.json";

/** Reads and validates `config.json` (a regular file in a private directory); a missing file is an empty config. */
export function readConfigFile(file: string): FileFields {
  const source = fileSource(file);
  let text: string | undefined;
  try {
    text = readRegularFile(file)?.text;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`, "file", { hint: "Check the file's permissions." });
  }
  if (text === undefined) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Invalid configuration in ${file}: not valid JSON (${(error as Error).message}).`, "file", {
      hint: "Fix the JSON syntax, or delete the file to start from the defaults.",
    });
  }
  return validateFileFields(source, data);
}

/** Environment variables that override the file (secrets are read by `readEnvSecrets`). */
function envFields(env: NodeJS.ProcessEnv): FileFields {
  const out: FileFields = {};
  if (env.GATEWAY_UPSTREAM) out.upstream = validateUpstream(envSource("GATEWAY_UPSTREAM"), env.GATEWAY_UPSTREAM, "GATEWAY_UPSTREAM");
  if (env.GATEWAY_PORT) out.port = validatePort(envSource("GATEWAY_PORT"), env.GATEWAY_PORT, "GATEWAY_PORT");
  for (const [name, field] of [
    ["GATEWAY_MESSAGES_SEGMENT", "messagesSegment"],
    ["GATEWAY_GEMINI_SEGMENT", "geminiSegment"],
  ] as const) {
    const value = env[name];
    if (value) out[field] = validateSegment(envSource(name), value, name);
  }
  return out;
}

function flagFields(flags: ConfigFlags): FileFields {
  const out: FileFields = {};
  if (flags.upstream !== undefined) out.upstream = validateUpstream(FLAG_SOURCE, flags.upstream, "--upstream");
  if (flags.messagesSegment !== undefined) out.messagesSegment = validateSegment(FLAG_SOURCE, flags.messagesSegment, "--messages-segment");
  if (flags.geminiSegment !== undefined) out.geminiSegment = validateSegment(FLAG_SOURCE, flags.geminiSegment, "--gemini-segment");
  if (flags.port !== undefined) out.port = validatePort(FLAG_SOURCE, flags.port, "--port");
  if (flags.host !== undefined) out.host = validateHost(FLAG_SOURCE, flags.host, "--host");
  if (flags.cors !== undefined && flags.cors.length > 0) out.cors = flags.cors.map((origin) => validateOrigin(FLAG_SOURCE, origin, "--cors"));
  if (flags.capture !== undefined) out.capture = validateCapture(FLAG_SOURCE, flags.capture, "--capture");
  return out;
}

/**
 * The one place configuration is resolved: flags > environment > config file > defaults.
 * Returns a frozen object; invalid input throws a `ConfigError` naming the source, the field and what is expected.
 */
export function loadConfig(options: LoadConfigOptions = {}): GatewayConfig {
  const env = options.env ?? process.env;
  const configDir = resolveConfigDir(env);
  checkPrivateDir(configDir);
  const configFile = join(configDir, CONFIG_FILE_NAME);
  const layers = [readConfigFile(configFile), envFields(env), flagFields(options.flags ?? {})];
  const merged = layers.reduce<FileFields>((acc, layer) => ({ ...acc, ...layer }), {});
  const timeouts = Object.freeze({
    ...DEFAULTS.timeouts,
    ...layers.reduce((acc, layer) => ({ ...acc, ...layer.timeouts }), {}),
  });
  if (merged.geminiSegment !== undefined && merged.geminiSegment === (merged.messagesSegment ?? DEFAULTS.messagesSegment)) {
    throw new ConfigError(`The Gemini and messages segments are both "${merged.geminiSegment}".`, "file", {
      hint: "Give each family its own segment (geminiSegment, messagesSegment).",
    });
  }
  return Object.freeze({
    ...DEFAULTS,
    ...merged,
    cors: Object.freeze([...(merged.cors ?? DEFAULTS.cors)]),
    timeouts,
    configDir,
    configFile,
    stateDir: resolveStateDir(env),
  });
}

/** `GATEWAY_API_KEY` and `GATEWAY_LOCAL_KEY`, empty values treated as unset. */
export function readEnvSecrets(env: NodeJS.ProcessEnv = process.env): EnvSecrets {
  return {
    upstreamKey: env.GATEWAY_API_KEY?.trim() || undefined,
    localKey: env.GATEWAY_LOCAL_KEY?.trim() || undefined,
  };
}
