/**
 * The tool behind a user agent, without its version, so one tool's requests group together across upgrades:
 * `OpenAI/JS 6.9.1` → `OpenAI/JS`, `claude-cli/1.0.83 (external, cli)` → `claude-cli`, `curl/8.5.0` → `curl`.
 */
export function clientName(userAgent: string | undefined): string {
  const product = userAgent?.trim().split(/[\s(]/, 1)[0];
  if (!product) return "unknown";
  const slash = product.indexOf("/");
  return slash > 0 && /\d/.test(product[slash + 1] ?? "") ? product.slice(0, slash) : product;
}

/** The coding tools a route can name (SPEC 11, Routes: `client`), by the product each puts first in its user agent. */
export const KNOWN_CLIENT_NAMES = ["claude-code", "codex", "gemini-cli", "qwen-code"] as const;
export type KnownClient = (typeof KNOWN_CLIENT_NAMES)[number];

/**
 * Each tool's user-agent products: Claude Code's `claude-cli/2.1.197 (external, cli)`; Codex's originators
 * (`codex_cli_rs/0.156.1 (...)`, `codex_exec`, `codex-tui`, `codex_vscode`, `codex_sdk_ts`: codex-rs
 * `get_codex_user_agent`); Gemini CLI's `GeminiCLI/0.61.0/<model> (...)`; Qwen Code's `QwenCode/0.14.2 (linux; x64)`.
 */
const KNOWN_CLIENTS: ReadonlyMap<string, KnownClient> = new Map([
  ["claude-cli", "claude-code"],
  ["codex_cli_rs", "codex"],
  ["codex_exec", "codex"],
  ["codex-tui", "codex"],
  ["codex_vscode", "codex"],
  ["codex_sdk_ts", "codex"],
  ["GeminiCLI", "gemini-cli"],
  ["QwenCode", "qwen-code"],
]);

/** The coding tool behind a user agent, when it is one a route can name. */
export const knownClient = (userAgent: string | undefined): KnownClient | undefined => KNOWN_CLIENTS.get(clientName(userAgent));
