import { rmSync } from "node:fs";
import { afterAll, afterEach, expect } from "vitest";
import { cliEnv, runCli } from "./cli.js";
import { freePort } from "./free-port.js";
import { tempConfigDir } from "./gateway.js";
import { privateDir } from "./tools.js";

/**
 * Configurations for tests of detached gateways: each a config directory of its own, a private state directory
 * (a new one, or one shared with another configuration) and a free configured port (never 8484, where a developer's
 * own gateway may run). Every gateway a test started is stopped after it, by its record; the directories go after
 * the file.
 */
export function useConfigurations(prefix: string) {
  const dirs: string[] = [];
  const envs: NodeJS.ProcessEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) for (let i = 0; i < 3 && (await runCli(["stop"], env)).stderr.includes("stopped"); i++);
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const stateDir = (): string => {
    const dir = privateDir(prefix);
    dirs.push(dir);
    return dir;
  };
  return {
    stateDir,
    /** The environment of a configuration: `extra` wins over the defaults (`GATEWAY_STATE_DIR` to share one). */
    async configuration(extra: Record<string, string | undefined> = {}, file?: Record<string, unknown>): Promise<NodeJS.ProcessEnv> {
      const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(file), GATEWAY_STATE_DIR: stateDir(), GATEWAY_PORT: String(await freePort()), ...extra });
      envs.push(env);
      return env;
    },
  };
}

/** `gateway start --detach <args>`, which must succeed: the port and pid it reports. */
export async function detach(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ port: number; pid: number }> {
  const started = await runCli(["start", "--detach", ...args], env);
  expect(started.code, started.stderr).toBe(0);
  expect(started.stderr).toContain("Gateway running in the background");
  return { port: Number(/127\.0\.0\.1:(\d+)/.exec(started.stderr)![1]), pid: Number(/pid (\d+)/.exec(started.stderr)![1]) };
}
