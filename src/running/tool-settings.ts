import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { toolName } from "./tool-profiles.js";

/** A setting in a tool's own files that wins over what `gateway run` gives the tool: named, never its value. */
export interface Bypass {
  file: string;
  setting: string;
  /** What the tool then does instead of using the gateway. */
  effect: string;
  fix: string;
}

/** What the checks need to know about this run. */
export interface RunPlace {
  /** The environment the tool starts with (`gateway env` and the tool's profile on top of this shell's). */
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform: NodeJS.Platform;
  /** `gateway run --own-login`: the tool's own credential is what it should send, so a key of its settings is no bypass. */
  ownLogin?: boolean | undefined;
}

/** A file's text, or undefined when it is missing or unreadable (the tool itself then reads nothing from it). */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function readJson(file: string): Record<string, unknown> | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const withoutSlash = (url: string) => url.replace(/\/+$/, "");

/** Claude Code's settings files a person or a project writes, which `claudeCode` and `hasStatusLine` read. */
const claudeSettingsFiles = (place: RunPlace): string[] => [
  join(place.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"), "settings.json"),
  join(place.cwd, ".claude", "settings.json"),
  join(place.cwd, ".claude", "settings.local.json"),
];

/**
 * Whether the user's Claude Code settings (or the project's) already have a `statusLine`, or the command line gives
 * settings of its own (`--settings file` or `--settings=file`): `gateway run claude` then leaves the status line as it
 * is (SPEC 11, Status line).
 */
export const hasStatusLine = (place: RunPlace, args: readonly string[]): boolean =>
  args.some((arg) => arg === "--settings" || arg.startsWith("--settings=")) || claudeSettingsFiles(place).some((file) => readJson(file)?.statusLine !== undefined);

/**
 * Claude Code applies the `env` block of its settings files over the environment it was started with (checked with
 * Claude Code 2.1.197: `env.ANTHROPIC_BASE_URL` in ~/.claude/settings.json sent every request, the local key with
 * it, to that URL despite `gateway run`), and `apiKeyHelper`'s output replaces the key. Its settings files
 * (code.claude.com/docs/en/settings, "Settings files"): the user's (`$CLAUDE_CONFIG_DIR`, else ~/.claude), the
 * project's shared and local ones, and the managed file an administrator puts in place.
 */
function claudeCode(place: RunPlace): Bypass[] {
  const managed =
    place.platform === "darwin" ? "/Library/Application Support/ClaudeCode/managed-settings.json" : place.platform === "win32" ? "C:\\Program Files\\ClaudeCode\\managed-settings.json" : "/etc/claude-code/managed-settings.json";
  // What the tool is given: the gateway's URL, and its local key as a token (a settings key equal to it is harmless).
  const ours = (name: string, value: string) => {
    if (name === "ANTHROPIC_BASE_URL") return place.env.ANTHROPIC_BASE_URL !== undefined && withoutSlash(place.env.ANTHROPIC_BASE_URL) === withoutSlash(value);
    return name.endsWith("_KEY") || name.endsWith("_TOKEN") ? value === place.env.ANTHROPIC_AUTH_TOKEN : false;
  };
  const effects: Record<string, string> = {
    ANTHROPIC_BASE_URL: "Claude Code sends its requests, with your local key, to that URL instead of the gateway",
    ANTHROPIC_AUTH_TOKEN: "Claude Code sends that token instead of the gateway's local key, and the gateway answers 401",
    ANTHROPIC_API_KEY: "Claude Code sends that key instead of the gateway's local key, and the gateway answers 401",
    CLAUDE_CODE_USE_BEDROCK: "Claude Code talks to Amazon Bedrock instead of the gateway",
    CLAUDE_CODE_USE_VERTEX: "Claude Code talks to Google Vertex AI instead of the gateway",
  };
  const found: Bypass[] = [];
  for (const file of [...claudeSettingsFiles(place), managed]) {
    const settings = readJson(file);
    if (!settings) continue;
    const fix = file === managed ? "It is your administrator's managed settings file: ask them, or run Claude Code without the gateway." : "Remove it from that file to use the gateway (`gateway run` gives Claude Code what it needs).";
    const env = typeof settings.env === "object" && settings.env !== null ? (settings.env as Record<string, unknown>) : {};
    for (const [name, effect] of Object.entries(effects)) {
      const value = env[name];
      const credential = name.endsWith("_KEY") || name.endsWith("_TOKEN");
      if (typeof value === "string" && value !== "" && !ours(name, value) && !(credential && place.ownLogin)) found.push({ file, setting: `env.${name}`, effect, fix });
    }
    if (typeof settings.apiKeyHelper === "string" && settings.apiKeyHelper !== "" && !place.ownLogin) {
      found.push({ file, setting: "apiKeyHelper", effect: "Claude Code sends what that helper prints instead of the gateway's local key, and the gateway answers 401", fix });
    }
  }
  return found;
}

/**
 * Codex: `gateway run codex` passes `-c model_provider=...` and `-c model_providers.gateway=...`, which win over the
 * user's and a project's config.toml (codex-rs `core/src/config`: command-line overrides are the top user-editable
 * layer; checked with Codex 0.169.0, where a config.toml `model_provider`, `[model_providers.gateway]` or
 * `openai_base_url` changed nothing, and the legacy `profile` key is refused by Codex itself). Only the managed
 * layer an administrator installs sits above them: its `model_provider` sent Codex 0.169.0 to that provider.
 */
async function codex(place: RunPlace): Promise<Bypass[]> {
  const file = place.platform === "win32" ? join(place.env.CODEX_HOME || join(homedir(), ".codex"), "managed_config.toml") : "/etc/codex/managed_config.toml";
  const text = readText(file);
  if (text === undefined) return [];
  let config: Record<string, unknown>;
  try {
    config = (await import("smol-toml")).parse(text);
  } catch {
    return [];
  }
  const fix = "It is your administrator's managed configuration: ask them, or run Codex without the gateway.";
  const found: Bypass[] = [];
  if (typeof config.model_provider === "string" && config.model_provider !== "gateway") {
    found.push({ file, setting: "model_provider", effect: "Codex sends its requests to that provider instead of the gateway", fix });
  }
  const providers = config.model_providers;
  if (typeof providers === "object" && providers !== null && Object.hasOwn(providers, "gateway")) {
    found.push({ file, setting: "model_providers.gateway", effect: "Codex uses that definition of the gateway's provider instead of the one `gateway run` gives it", fix });
  }
  return found;
}

/**
 * What in the tool's own files would take this run away from the gateway. Gemini CLI has none: the gateway's system
 * settings file is merged last, over the user's and the workspace's (`mergeSettings` in packages/cli
 * `config/settings.ts`), its settings hold no base URL, and its `.env` files never replace a variable that is set
 * (`loadEnvironment`: `if (!Object.hasOwn(process.env, key))`).
 */
export async function findBypasses(command: string, place: RunPlace): Promise<Bypass[]> {
  const tool = toolName(command);
  if (tool === "claude") return claudeCode(place);
  if (tool === "codex") return codex(place);
  return [];
}
