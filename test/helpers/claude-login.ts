import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A private HOME holding Claude Code's subscription login with `accessToken`, as its `/login` leaves it on Linux:
 * `~/.claude/.credentials.json`, `claudeAiOauth` with `accessToken`, `refreshToken`, `expiresAt`, `scopes`,
 * `subscriptionType`, `rateLimitTier` (Claude Code 2.1.197, from `strings` on its binary).
 */
export function logInToClaude(home: string, accessToken: string): void {
  const dir = join(home, ".claude");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, ".credentials.json");
  const oauth = {
    accessToken,
    refreshToken: "sk-ant-ort01-standin-refresh-token-0123456789",
    expiresAt: Date.UTC(2100, 0, 1),
    scopes: ["user:inference", "user:profile", "user:sessions:claude_code"],
    subscriptionType: "max",
    rateLimitTier: "default_claude_max_20x",
  };
  writeFileSync(file, JSON.stringify({ claudeAiOauth: oauth }));
  chmodSync(file, 0o600);
}

/** Every file under `dir`, as text: what a test greps for a credential that must not be kept. */
export function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}
