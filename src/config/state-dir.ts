import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where the request log lives: `$GATEWAY_STATE_DIR`, else `$XDG_STATE_HOME/gateway`, else the platform's usual
 * place for an app's logs (`%LOCALAPPDATA%\gateway` on Windows, `~/Library/Logs/gateway` on macOS,
 * `~/.local/state/gateway` elsewhere).
 */
export function resolveStateDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.GATEWAY_STATE_DIR) return env.GATEWAY_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "gateway");
  if (platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "gateway");
  if (platform === "darwin") return join(homedir(), "Library", "Logs", "gateway");
  return join(homedir(), ".local", "state", "gateway");
}
