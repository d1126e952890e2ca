import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, expect } from "vitest";
import { cliEnv, runCli } from "./cli.js";
import { freePort } from "./free-port.js";
import { tempConfigDir } from "./gateway.js";
import { privateDir as newPrivateDir } from "./tools.js";

/** One person at the CLI: a config directory (and so a local key), a state directory, a configured port. */
export interface CliUser {
  env: NodeJS.ProcessEnv;
  port: number;
  configFile: string;
}

/**
 * CLI users for a test file, each with directories of their own (`prefix` names them): every gateway a test started
 * is stopped by its record after the test, every directory removed after the file.
 */
export function cliUsers(prefix: string) {
  const dirs: string[] = [];
  const users: CliUser[] = [];
  const privateDir = (): string => {
    const dir = newPrivateDir(prefix);
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const u of users.splice(0)) for (let i = 0; i < 3 && (await runCli(["stop"], u.env)).stderr.includes("stopped"); i++);
  });
  const user = async (extra: Record<string, string | undefined> = {}, file?: Record<string, unknown>): Promise<CliUser> => {
    const port = await freePort();
    const configDir = tempConfigDir(file);
    dirs.push(configDir);
    const u = { env: cliEnv({ GATEWAY_CONFIG_DIR: configDir, GATEWAY_STATE_DIR: privateDir(), GATEWAY_PORT: String(port), ...extra }), port, configFile: join(configDir, "config.json") };
    users.push(u);
    return u;
  };
  return { user, privateDir };
}

/** `gateway start --detach` for `u`, which must succeed: its output, and the port and pid it names. */
export async function detachGateway(u: Pick<CliUser, "env">, ...args: string[]) {
  const started = await runCli(["start", "--detach", ...args], u.env);
  expect(started.code, started.stderr).toBe(0);
  return { ...started, port: Number(/127\.0\.0\.1:(\d+)/.exec(started.stderr)![1]), pid: Number(/pid (\d+)/.exec(started.stderr)![1]) };
}
