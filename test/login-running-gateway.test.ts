import { rmSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";
import { privateDir as newPrivateDir } from "./helpers/tools.js";

/**
 * Issue 37, item 15: `gateway login` ends by saying what happens next, and it is true: with no gateway of this
 * configuration running, start one; with one running that reads this key from the keychain, it uses the new key
 * within 5 s (SPEC 8), no restart; with one running that does not, a restart is what it takes.
 */

const keyring = process.env.GATEWAY_TEST_KEYRING === "1";
const dirs: string[] = [];
const envs: NodeJS.ProcessEnv[] = [];
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  for (const env of envs.splice(0)) {
    for (let i = 0; i < 3 && (await runCli(["stop"], env)).stderr.includes("stopped"); i++);
    await runCli(["logout"], env);
  }
  await upstream?.close();
  upstream = undefined;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function configuration(extra: Record<string, string | undefined> = {}) {
  const stateDir = newPrivateDir("login-running-");
  dirs.push(stateDir);
  const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: stateDir, GATEWAY_PORT: String(await freePort()), DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, ...extra });
  envs.push(env);
  return env;
}

const detach = async (env: NodeJS.ProcessEnv) => {
  const started = await runCli(["start", "--detach"], env);
  expect(started.code, started.stderr).toBe(0);
  return Number(/127\.0\.0\.1:(\d+)/.exec(started.stderr)![1]);
};

describe.skipIf(!keyring)("what gateway login says comes next (item 15)", () => {
  it("with no gateway running: start one; with this configuration's gateway running: it uses the new key within 5 s", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.key = GOOD_LOGIN_KEY;
    const env = await configuration();
    const first = await runCli(["login", "--upstream", upstream.url, "--stdin"], env, GOOD_LOGIN_KEY);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`✔ Key stored in the OS keychain (service "gateway", account ${upstream.url}). Start the gateway: gateway start`);
    const port = await detach(env);
    const again = await runCli(["login", "--stdin"], env, GOOD_LOGIN_KEY);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `✔ Key stored in the OS keychain (service "gateway", account ${upstream.url}). The gateway running on http://127.0.0.1:${port} uses it within 5 s; no restart needed.`,
    );
    expect(again.stderr).not.toContain("gateway start");
  });

  it("with a gateway running that serves another upstream: restart it to use this one", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.key = FAKE_UPSTREAM_KEY;
    const env = await configuration();
    const port = await detach(env);
    const login = await runCli(["login", "--upstream", upstream.url, "--stdin", "--no-verify"], env, FAKE_UPSTREAM_KEY);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      `The gateway running on http://127.0.0.1:${port} does not use it: it serves echo. Restart it to serve ${upstream.url}: gateway stop, then gateway start`,
    );
  });
});
