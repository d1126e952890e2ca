import { homedir } from "node:os";
import { join } from "node:path";

/**
 * `$GATEWAY_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gateway`, else the platform's usual place
 * (`%APPDATA%\gateway` on Windows, `~/.config/gateway` elsewhere).
 */
export function resolveConfigDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.GATEWAY_CONFIG_DIR) return env.GATEWAY_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "gateway");
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "gateway");
  return join(homedir(), ".config", "gateway");
}
