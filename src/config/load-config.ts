import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../errors.js";
import { DEFAULTS } from "./defaults.js";
import { resolveConfigDir } from "./config-dir.js";
import { resolveStateDir } from "./state-dir.js";
import type { EnvSecrets, GatewayConfig } from "./types.js";
import {
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
  upstream?: string;
  messagesSegment?: string;
  port?: string | number;
  host?: string;
  cors?: readonly string[];
}

export interface LoadConfigOptions {
  flags?: ConfigFlags;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** The file name inside the config directory. */
export const CONFIG_FILE_NAME = "config.json";

/** Reads and validates `config.json`; a missing file is an empty config. */
export function readConfigFile(file: string): FileFields {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`, { hint: "Check the file's permissions." });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CliError(`Invalid configuration in ${file}: not valid JSON (${(error as Error).message}).`, {
      hint: "Fix the JSON syntax, or delete the file to start from the defaults.",
      exitCode: 2,
    });
  }
  return validateFileFields(file, data);
}

/** Environment variables that override the file (secrets are read by `readEnvSecrets`). */
function envFields(env: NodeJS.ProcessEnv): FileFields {
  const out: FileFields = {};
  if (env.GATEWAY_UPSTREAM) out.upstream = validateUpstream("GATEWAY_UPSTREAM", env.GATEWAY_UPSTREAM, "GATEWAY_UPSTREAM");
  if (env.GATEWAY_PORT) out.port = validatePort("GATEWAY_PORT", env.GATEWAY_PORT, "GATEWAY_PORT");
  if (env.GATEWAY_MESSAGES_SEGMENT) {
    out.messagesSegment = validateSegment("GATEWAY_MESSAGES_SEGMENT", env.GATEWAY_MESSAGES_SEGMENT, "GATEWAY_MESSAGES_SEGMENT");
  }
  return out;
}

function flagFields(flags: ConfigFlags): FileFields {
  const out: FileFields = {};
  if (flags.upstream !== undefined) out.upstream = validateUpstream("the command line", flags.upstream, "--upstream");
  if (flags.messagesSegment !== undefined) {
    out.messagesSegment = validateSegment("the command line", flags.messagesSegment, "--messages-segment");
  }
  if (flags.port !== undefined) out.port = validatePort("the command line", flags.port, "--port");
  if (flags.host !== undefined) out.host = validateHost("the command line", flags.host, "--host");
  if (flags.cors !== undefined && flags.cors.length > 0) {
    out.cors = flags.cors.map((origin) => validateOrigin("the command line", origin, "--cors"));
  }
  return out;
}

/**
 * The one place configuration is resolved: flags > environment > config file > defaults.
 * Returns a frozen object; invalid input throws a `CliError` naming the source, the field and what is expected.
 */
export function loadConfig(options: LoadConfigOptions = {}): GatewayConfig {
  const env = options.env ?? process.env;
  const configDir = resolveConfigDir(env);
  const configFile = join(configDir, CONFIG_FILE_NAME);
  const layers = [readConfigFile(configFile), envFields(env), flagFields(options.flags ?? {})];
  const merged = layers.reduce<FileFields>((acc, layer) => ({ ...acc, ...layer }), {});
  const timeouts = Object.freeze({
    ...DEFAULTS.timeouts,
    ...layers.reduce((acc, layer) => ({ ...acc, ...layer.timeouts }), {}),
  });
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
