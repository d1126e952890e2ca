import { join } from "node:path";
import { ConfigError } from "../errors/index.js";
import { checkPrivateDir } from "../files/private-files.js";
import { resolveConfigDir } from "./config-dir.js";
import { DEFAULTS } from "./defaults.js";
import { envFields, flagFields, type ConfigFlags } from "./env-and-flags.js";
import { CONFIG_FILE_NAME, readConfigFile } from "./read-config-file.js";
import { checkRoutes } from "./references.js";
import { resolveUpstreams } from "./resolve-upstreams.js";
import type { FileFields } from "./schemas/config-file.js";
import { fileSource } from "./validate-fields.js";
import { resolveStateDir } from "./state-dir.js";
import type { EnvSecrets, GatewayConfig } from "./types.js";

export interface LoadConfigOptions {
  flags?: ConfigFlags;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Leave config.json unread, as if it did not exist (commands that go on past a broken file). */
  withoutFile?: boolean;
}

/**
 * The one place configuration is resolved: flags > environment > config file > defaults, then the upstreams of
 * SPEC section 10 (`upstreams`, the default first when `upstream` makes one; `defaultUpstream`, its name) and the
 * `routes` of SPEC 11 (each `to` one of them).
 * `upstream` is the default upstream's URL (or `echo`), whichever way it was chosen. Returns a frozen object;
 * invalid input throws a `ConfigError` naming the source, the field and what is expected.
 */
export function loadConfig(options: LoadConfigOptions = {}): GatewayConfig {
  const env = options.env ?? process.env;
  const configDir = resolveConfigDir(env);
  checkPrivateDir(configDir);
  const configFile = join(configDir, CONFIG_FILE_NAME);
  const file = options.withoutFile ? {} : readConfigFile(configFile);
  const names = Object.keys(file.upstreams ?? {});
  const layers = [file, envFields(env, names), flagFields(options.flags ?? {}, names)];
  const { upstreams: _, ...merged } = layers.reduce<FileFields>((acc, layer) => ({ ...acc, ...layer }), {});
  const timeouts = Object.freeze({
    ...DEFAULTS.timeouts,
    ...layers.reduce((acc, layer) => ({ ...acc, ...layer.timeouts }), {}),
  });
  const top = { ...DEFAULTS, ...merged, timeouts };
  const flags = layers[2]!;
  checkSegments(top.messagesSegment, top.geminiSegment, flags.messagesSegment !== undefined || flags.geminiSegment !== undefined ? "flag" : "file");
  const resolved = resolveUpstreams({ ...top, upstream: merged.upstream }, file.upstreams, fileSource(configFile));
  checkRoutes(fileSource(configFile), top.routes, resolved.upstreams.map((upstream) => upstream.name));
  return Object.freeze({
    ...top,
    upstream: resolved.upstreams.find((upstream) => upstream.name === resolved.defaultUpstream)!.url,
    cors: Object.freeze([...top.cors]),
    ...resolved,
    configDir,
    configFile,
    stateDir: resolveStateDir(env),
  });
}

/**
 * Locally each family lives under its segment (SPEC section 2), so the two must differ. Two empty ones do not
 * clash: the families then live at `/v1/messages` and `/v1beta/...`. A clash a flag made is usage (exit 2), as
 * every bad flag is.
 */
function checkSegments(messagesSegment: string, geminiSegment: string, source: "flag" | "file"): void {
  if (geminiSegment === "" || geminiSegment !== messagesSegment) return;
  throw new ConfigError(`The Gemini and messages segments are both "${geminiSegment}".`, source, {
    hint: "Give each family its own segment (geminiSegment, messagesSegment).",
  });
}

/** `GATEWAY_API_KEY` and `GATEWAY_LOCAL_KEY`, empty values treated as unset. */
export function readEnvSecrets(env: NodeJS.ProcessEnv = process.env): EnvSecrets {
  return {
    upstreamKey: env.GATEWAY_API_KEY?.trim() || undefined,
    localKey: env.GATEWAY_LOCAL_KEY?.trim() || undefined,
  };
}
