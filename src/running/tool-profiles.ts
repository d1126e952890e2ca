import { basename, join } from "node:path";

/** Where the gateway is, as a launched tool needs it. */
export interface GatewayAddress {
  /** `gateway env`'s variables for this gateway. */
  env: Readonly<Record<string, string>>;
  openaiBaseUrl: string;
  localKey: string;
  /** The gateway's private state directory, for settings files a tool is pointed at. */
  stateDir: string;
  /** Whether every upstream a `claude*` model can be routed to is of kind `anthropic` (`claudeOnAnthropicOnly`). */
  claudeOnAnthropic: boolean;
}

export interface LaunchOptions {
  /** Turn off what the tool sends elsewhere than the gateway: update checks and installs, telemetry, usage statistics. */
  offline: boolean;
  /**
   * Keep the tool's own login (SPEC 11, Your own login): only its base URL changes, the gateway gives it no key (one
   * the user had set passes as it was), and the gateway passes its credential to `key: "client"` upstreams.
   */
  ownLogin?: boolean | undefined;
  /** The command Claude Code's status line runs (`gateway statusline`), when `gateway run` sets one (SPEC 11, Status line). */
  statusLine?: string | undefined;
}

/** What a known tool needs beyond `gateway env` to start pointed at the gateway without asking anything. */
export interface ToolLaunch {
  /** Variables to set (a value) or remove (undefined) on top of the inherited environment and `gateway env`. */
  env: Record<string, string | undefined>;
  /** Variables to set only where the inherited environment has none: a value the user set is kept. */
  envDefaults?: Record<string, string>;
  /** Arguments to put in front of the user's own. */
  leadingArgs: string[];
  /** Files of the gateway's own (path → content) to write before the tool starts. */
  files?: Record<string, string>;
  /** What to tell the user when the tool exits with one of these codes. */
  exitHints?: Record<number, string>;
}

type Profile = (gateway: GatewayAddress, options: LaunchOptions) => ToolLaunch;

/**
 * `--offline` for every tool, whichever it is (each reads only its own): Claude Code's auto-updater, telemetry and
 * error reports (`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` covers all of its non-essential calls), Gemini CLI's and
 * Qwen Code's OpenTelemetry export.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = Object.freeze({
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  GEMINI_TELEMETRY_ENABLED: "false",
  QWEN_TELEMETRY_ENABLED: "false",
});

/** Gemini CLI's and Qwen Code's settings (one schema, Qwen Code is a fork) that stop their update checks and usage statistics. */
const QUIET_SETTINGS = {
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/** A settings file of the gateway's own, one per content, so runs with and without `--offline` never overwrite each other's. */
function settingsFile(g: GatewayAddress, tool: string, offline: boolean, settings: object): Record<string, string> {
  return { [join(g.stateDir, `${tool}-settings${offline ? "-offline" : ""}.json`)]: `${JSON.stringify(settings, null, 2)}\n` };
}

/**
 * Per tool, found by the command's file name. Each entry says why it is needed; none writes to the tool's own
 * config files.
 */
const PROFILES: Readonly<Record<string, Profile>> = {
  // Claude Code asks whether to trust an ANTHROPIC_API_KEY it has not seen before; a bearer token
  // (ANTHROPIC_AUTH_TOKEN, which the messages family accepts) is used without that question. Model discovery makes it
  // read the gateway's model list at start (GET /v1/models?limit=1000) and offer its claude* ids in /model (SPEC 11).
  // With its own login it keeps whatever it signs in with: a subscription's OAuth token (~/.claude/.credentials.json),
  // which it sends as a bearer token to ANTHROPIC_BASE_URL (checked with Claude Code 2.1.197), or the user's own key.
  // Its status line is `gateway statusline`, from a settings file of the gateway's own passed with `--settings`
  // (loaded over the user's and the project's files; never written into them). Behind a base URL of its own it
  // searches its tools (deferred tools, `tool_reference`) unless told not to (2.1.3xx; 2.1.197 only when told to);
  // Anthropic's API expands them itself, so it is told `true` when every claude* model is routed there and `false`
  // otherwise (SPEC 11), a value the user set passing as it was. (On a translated route the gateway expands them
  // too, SPEC 12, which is why `gateway env` sets nothing.)
  claude: (g, { ownLogin, statusLine }) => {
    const files = statusLine ? settingsFile(g, "claude-code", false, { statusLine: { type: "command", command: statusLine, padding: 0 } }) : undefined;
    return {
      env: ownLogin
        ? { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: "1" }
        : { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: g.localKey, CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: "1" },
      envDefaults: { ENABLE_TOOL_SEARCH: g.claudeOnAnthropic ? "true" : "false" },
      leadingArgs: files ? ["--settings", Object.keys(files)[0]!] : [],
      ...(files ? { files } : {}),
    };
  },
  // Codex reads its provider from ~/.codex/config.toml; `-c` overrides it for this run only, so the user's file
  // stays untouched. `model_catalog_url` makes it read each model's context window and reasoning levels from the
  // gateway's catalog (`GET /v1/models?client_version=...`, SPEC 12) instead of warning "model metadata not found". It speaks only the Responses API, over the gateway's WebSocket (`supports_websockets = true`,
  // codex-rs ModelProviderInfo: one socket for the session, each turn sending only its new items; SPEC 12). Such a
  // provider also compacts with an ordinary request (codex-rs `supports_remote_compaction` is only the OpenAI and
  // Azure providers'). Offline: no update check at start, no analytics events.
  // With its own login, the provider takes Codex's own OpenAI sign-in (`requires_openai_auth`, codex-rs
  // ModelProviderInfo: the API key or ChatGPT login `codex login` stored) instead of a key variable.
  codex: (g, { offline, ownLogin }) => ({
    env: {},
    leadingArgs: [
      "-c",
      'model_provider="gateway"',
      "-c",
      `model_providers.gateway={ name = "gateway", base_url = "${g.openaiBaseUrl}", ${ownLogin ? "requires_openai_auth = true" : 'env_key = "OPENAI_API_KEY"'}, wire_api = "responses", supports_websockets = true, model_catalog_url = "${g.openaiBaseUrl}/models" }`,
      ...(offline ? ["-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false"] : []),
    ],
  }),
  // Qwen Code picks its auth method on first start; the OpenAI-compatible one reads OPENAI_BASE_URL and OPENAI_API_KEY.
  // Offline: a system settings file of our own turns off its update checks and usage statistics.
  qwen: (g, { offline }) => {
    if (!offline) return { env: {}, leadingArgs: ["--auth-type", "openai"] };
    const files = settingsFile(g, "qwen-code", true, QUIET_SETTINGS);
    return { env: { QWEN_CODE_SYSTEM_SETTINGS_PATH: Object.keys(files)[0]! }, leadingArgs: ["--auth-type", "openai"], files };
  },
  // Gemini CLI 0.61 picks a "gateway" auth type when GOOGLE_GEMINI_BASE_URL is set and then refuses it as
  // invalid; a system settings file of our own (never the user's ~/.gemini) selects the API-key type, which
  // still honours GOOGLE_GEMINI_BASE_URL. It reads no settings file below a folder others can write to (a state
  // directory under /tmp), and then exits 41 with "Invalid auth method selected."; the hint says where the file must
  // live. Its folder-trust check is left to it: headless (`-p`) in a folder not yet trusted it exits 55, and the hint
  // says how to trust the folder.
  gemini: (g, { offline }) => {
    const files = settingsFile(g, "gemini-cli", offline, { security: { auth: { selectedType: "gemini-api-key" } }, ...(offline ? QUIET_SETTINGS : {}) });
    return {
      env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: Object.keys(files)[0]! },
      leadingArgs: [],
      files,
      exitHints: {
        41: "Gemini CLI skipped the gateway's settings file, which selects its API-key sign-in: it reads none below a folder others can write to (its warning above names the folder). Keep the gateway's state directory (GATEWAY_STATE_DIR, by default ~/.local/state/gateway) under folders only you can write to.",
        55: "Gemini CLI does not run headless in a folder you have not trusted. Trust this one once (run `gateway run gemini` here and answer its question), or trust it for one run: `gateway run gemini --skip-trust -p \"...\"`.",
      },
    };
  },
  // Aider (through LiteLLM) reads OPENAI_API_BASE, not OPENAI_BASE_URL.
  aider: (g) => ({ env: { OPENAI_API_BASE: g.openaiBaseUrl }, leadingArgs: [] }),
};

/** The tool a command runs, by its file name (`/usr/bin/claude`, `codex.cmd`: `claude`, `codex`). */
export const toolName = (command: string): string => basename(command).replace(/\.(cmd|exe|js)$/i, "");

/** The tools `gateway run` knows by name. */
export const KNOWN_TOOLS = Object.keys(PROFILES);

/** The environment and arguments to launch `command` with, pointed at `gateway`; `--offline` adds `OFFLINE_ENV` for any command. */
export function launchFor(command: string, gateway: GatewayAddress, options: LaunchOptions = { offline: false }): ToolLaunch {
  const profile = PROFILES[toolName(command)];
  const launch = profile ? profile(gateway, options) : { env: {}, leadingArgs: [] };
  return options.offline ? { ...launch, env: { ...OFFLINE_ENV, ...launch.env } } : launch;
}
