import { checkUpstreamName } from "./references.js";
import { upstreamChoice } from "./schemas/base-url.js";
import type { FileFields } from "./schemas/config-file.js";
import { capture, nonEmptyText, origin, portText, segment } from "./schemas/values.js";
import { FLAG_SOURCE, envSource, validateValue, type Source } from "./validate-fields.js";

/** Values given on the command line; raw strings are validated here like every other source. */
export interface ConfigFlags {
  upstream?: string | undefined;
  /** `""` puts the messages family directly under the base. */
  messagesSegment?: string | undefined;
  geminiSegment?: string | undefined;
  port?: string | number | undefined;
  host?: string | undefined;
  cors?: readonly string[] | undefined;
  capture?: string | undefined;
}

/** `upstream` from one source; a name must be one of the file's `upstreams` (`names`). */
function upstream(source: Source, value: string, field: string, names: readonly string[]): string {
  const checked = validateValue(source, upstreamChoice, value, field);
  checkUpstreamName(source, field, checked, names);
  return checked;
}

/**
 * `GATEWAY_*` variables that override the file (secrets are read by `readEnvSecrets`). An empty variable counts as
 * unset, as shells make clearing one easy: an empty segment is set in the file or with the flag.
 */
export function envFields(env: NodeJS.ProcessEnv, names: readonly string[]): FileFields {
  const out: FileFields = {};
  if (env.GATEWAY_UPSTREAM) out.upstream = upstream(envSource("GATEWAY_UPSTREAM"), env.GATEWAY_UPSTREAM, "GATEWAY_UPSTREAM", names);
  if (env.GATEWAY_PORT) out.port = validateValue(envSource("GATEWAY_PORT"), portText, env.GATEWAY_PORT, "GATEWAY_PORT");
  if (env.GATEWAY_MESSAGES_SEGMENT) {
    out.messagesSegment = validateValue(envSource("GATEWAY_MESSAGES_SEGMENT"), segment, env.GATEWAY_MESSAGES_SEGMENT, "GATEWAY_MESSAGES_SEGMENT");
  }
  if (env.GATEWAY_GEMINI_SEGMENT) {
    out.geminiSegment = validateValue(envSource("GATEWAY_GEMINI_SEGMENT"), segment, env.GATEWAY_GEMINI_SEGMENT, "GATEWAY_GEMINI_SEGMENT");
  }
  return out;
}

/** Command-line values; `--upstream` may name one of the file's `upstreams` (`names`). */
export function flagFields(flags: ConfigFlags, names: readonly string[]): FileFields {
  const out: FileFields = {};
  if (flags.upstream !== undefined) out.upstream = upstream(FLAG_SOURCE, flags.upstream, "--upstream", names);
  if (flags.messagesSegment !== undefined) out.messagesSegment = validateValue(FLAG_SOURCE, segment, flags.messagesSegment, "--messages-segment");
  if (flags.geminiSegment !== undefined) out.geminiSegment = validateValue(FLAG_SOURCE, segment, flags.geminiSegment, "--gemini-segment");
  if (flags.port !== undefined) out.port = validateValue(FLAG_SOURCE, portText, flags.port, "--port");
  if (flags.host !== undefined) out.host = validateValue(FLAG_SOURCE, nonEmptyText, flags.host, "--host");
  if (flags.cors !== undefined && flags.cors.length > 0) out.cors = flags.cors.map((value) => validateValue(FLAG_SOURCE, origin, value, "--cors"));
  if (flags.capture !== undefined) out.capture = validateValue(FLAG_SOURCE, capture, flags.capture, "--capture");
  return out;
}
