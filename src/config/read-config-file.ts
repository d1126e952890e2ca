import { ConfigError, UnsafeFileError } from "../errors/index.js";
import { readRegularFile } from "../files/private-files.js";
import { describeJsonSyntaxError } from "./json-syntax.js";
import { checkUpstreamName } from "./references.js";
import { configFile, type FileFields } from "./schemas/config-file.js";
import { fileSource, validateValue } from "./validate-fields.js";

/** The file name inside the config directory. */
export const CONFIG_FILE_NAME = "config.json";

/**
 * Reads and validates `config.json` (a regular file in a private directory); a missing file is an empty config.
 * Its `upstream`, when a name, must be one of its own `upstreams`.
 */
export function readConfigFile(file: string): FileFields {
  const text = readConfigText(file);
  return text === undefined ? {} : parseConfigText(text, file);
}

/** `config.json`'s text as it is on disk (read without following a link); undefined when there is none. */
export function readConfigText(file: string): string | undefined {
  try {
    return readRegularFile(file)?.text;
  } catch (error) {
    if (error instanceof UnsafeFileError) throw error;
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`, "file", { hint: "Check the file's permissions." });
  }
}

/**
 * The fields of `config.json`'s text, validated (`file` names it in messages). Its `upstream`, when a name, must be
 * one of its own `upstreams`.
 */
export function parseConfigText(text: string, file: string): FileFields {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    // JSON.parse's own words ("at position 40") are the fallback for what jsonc-parser would read (a byte-order mark).
    const where = describeJsonSyntaxError(text) ?? (error as Error).message;
    throw new ConfigError(`Invalid configuration in ${file}: not valid JSON (${where}).`, "file", {
      hint: "Fix the JSON syntax, or delete the file to start from the defaults.",
    });
  }
  const fields = validateValue(fileSource(file), configFile, data, "(root)");
  if (fields.upstream !== undefined) checkUpstreamName(fileSource(file), "upstream", fields.upstream, Object.keys(fields.upstreams ?? {}));
  return fields;
}
