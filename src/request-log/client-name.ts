/** A user agent's first product without its version: `OpenAI/JS 6.9.1` → `OpenAI/JS`, `curl/8.5.0` → `curl`. */
function productOf(userAgent: string | undefined): string | undefined {
  const product = userAgent?.trim().split(/[\s(]/, 1)[0];
  if (!product) return undefined;
  const slash = product.indexOf("/");
  return slash > 0 && /\d/.test(product[slash + 1] ?? "") ? product.slice(0, slash) : product;
}

/**
 * The tool behind a user agent, without its version, so one tool's requests group together across upgrades and
 * across the products one tool sends under: a coding tool a route can name by that name (Claude Code's model list
 * comes as `claude-code/2.1.197`, its messages as `claude-cli/2.1.197 (external, cli)`: both `claude-code`), any
 * other by its product (`OpenAI/JS 6.9.1` → `OpenAI/JS`).
 */
export function clientName(userAgent: string | undefined): string {
  const product = productOf(userAgent);
  return product === undefined ? "unknown" : (KNOWN_CLIENTS.get(product) ?? product);
}

/** The coding tools a route can name (SPEC 11, Routes: `client`), by the product each puts first in its user agent. */
export const KNOWN_CLIENT_NAMES = ["claude-code", "codex", "gemini-cli", "qwen-code"] as const;
export type KnownClient = (typeof KNOWN_CLIENT_NAMES)[number];

/**
 * Each tool's user-agent products: Claude Code's `claude-cli/2.1.197 (external, cli)` (and `claude-code/2.1.197` for
 * its model list); Codex's originators
 * (`codex_cli_rs/0.156.1 (...)`, `codex_exec`, `codex-tui`, `codex_vscode`, `codex_sdk_ts`: codex-rs
 * `get_codex_user_agent`); Gemini CLI's `GeminiCLI/0.61.0/<model> (...)`; Qwen Code's `QwenCode/0.14.2 (linux; x64)`.
 */
const KNOWN_CLIENTS: ReadonlyMap<string, KnownClient> = new Map([
  ["claude-cli", "claude-code"],
  ["claude-code", "claude-code"],
  ["codex_cli_rs", "codex"],
  ["codex_exec", "codex"],
  ["codex-tui", "codex"],
  ["codex_vscode", "codex"],
  ["codex_sdk_ts", "codex"],
  ["GeminiCLI", "gemini-cli"],
  ["QwenCode", "qwen-code"],
]);

/** The coding tool behind a user agent, when it is one a route can name. */
export const knownClient = (userAgent: string | undefined): KnownClient | undefined => KNOWN_CLIENTS.get(productOf(userAgent) ?? "");
