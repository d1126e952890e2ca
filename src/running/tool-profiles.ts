import { basename, join } from "node:path";

/** Where the gateway is, as a launched tool needs it. */
export interface GatewayAddress {
  /** `gateway env`'s variables for this gateway. */
  env: Readonly<Record<string, string>>;
  openaiBaseUrl: string;
  localKey: string;
  /** The gateway's private state directory, for settings files a tool is pointed at. */
  stateDir: string;
}

/** What a known tool needs beyond `gateway env` to start pointed at the gateway without asking anything. */
export interface ToolLaunch {
  /** Variables to set (a value) or remove (undefined) on top of the inherited environment and `gateway env`. */
  env: Record<string, string | undefined>;
  /** Arguments to put in front of the user's own. */
  leadingArgs: string[];
  /** Files of the gateway's own (path → content) to write before the tool starts. */
  files?: Record<string, string>;
}

type Profile = (gateway: GatewayAddress) => ToolLaunch;

/**
 * Per tool, found by the command's file name. Each entry says why it is needed; none writes to the tool's own
 * config files.
 */
const PROFILES: Readonly<Record<string, Profile>> = {
  // Claude Code asks whether to trust an ANTHROPIC_API_KEY it has not seen before; a bearer token
  // (ANTHROPIC_AUTH_TOKEN, which the messages family accepts) is used without that question.
  claude: (g) => ({ env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: g.localKey }, leadingArgs: [] }),
  // Codex reads its provider from ~/.codex/config.toml; `-c` overrides it for this run only, so the user's file
  // stays untouched. It speaks only the Responses API.
  codex: (g) => ({
    env: {},
    leadingArgs: [
      "-c",
      'model_provider="gateway"',
      "-c",
      `model_providers.gateway={ name = "gateway", base_url = "${g.openaiBaseUrl}", env_key = "OPENAI_API_KEY", wire_api = "responses" }`,
    ],
  }),
  // Qwen Code picks its auth method on first start; the OpenAI-compatible one reads OPENAI_BASE_URL and OPENAI_API_KEY.
  qwen: () => ({ env: {}, leadingArgs: ["--auth-type", "openai"] }),
  // Gemini CLI 0.61 picks a "gateway" auth type when GOOGLE_GEMINI_BASE_URL is set and then refuses it as
  // invalid; a system settings file of our own (never the user's ~/.gemini) selects the API-key type, which
  // still honours GOOGLE_GEMINI_BASE_URL.
  gemini: (g) => {
    const settings = join(g.stateDir, "gemini-cli-settings.json");
    return {
      env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: settings },
      leadingArgs: [],
      files: { [settings]: `${JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }, null, 2)}\n` },
    };
  },
  // Aider (through LiteLLM) reads OPENAI_API_BASE, not OPENAI_BASE_URL.
  aider: (g) => ({ env: { OPENAI_API_BASE: g.openaiBaseUrl }, leadingArgs: [] }),
};

/** The tools `gateway run` knows by name. */
export const KNOWN_TOOLS = Object.keys(PROFILES);

/** The environment and arguments to launch `command` with, pointed at `gateway`. */
export function launchFor(command: string, gateway: GatewayAddress): ToolLaunch {
  const profile = PROFILES[basename(command).replace(/\.(cmd|exe|js)$/i, "")];
  return profile ? profile(gateway) : { env: {}, leadingArgs: [] };
}
