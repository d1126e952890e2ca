import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { detach, useConfigurations } from "./helpers/detached.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";

/**
 * Issue 37, item 15: `gateway login` ends by saying what happens next, and it is true: with no gateway of this
 * configuration running, start one; with one running that reads this key from the keychain, it uses the new key
 * within 5 s (SPEC 8), no restart; with one running that does not, a restart is what it takes.
 */

const keyring = process.env.GATEWAY_TEST_KEYRING === "1";
const configurations = useConfigurations("login-running-");
const loggedIn: NodeJS.ProcessEnv[] = [];
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  for (const env of loggedIn.splice(0)) await runCli(["logout"], env);
  await upstream?.close();
  upstream = undefined;
});

async function configuration(): Promise<NodeJS.ProcessEnv> {
  const env = await configurations.configuration({ DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
  loggedIn.push(env);
  return env;
}

describe.skipIf(!keyring)("what gateway login says comes next (item 15)", () => {
  it("with no gateway running: start one; with this configuration's gateway running: it uses the new key within 5 s", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.key = GOOD_LOGIN_KEY;
    const env = await configuration();
    const first = await runCli(["login", "--upstream", upstream.url, "--stdin"], env, GOOD_LOGIN_KEY);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`✔ Key stored in the OS keychain (service "gateway", account ${upstream.url}). Start the gateway: gateway start`);
    const { port } = await detach(env);
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
    const { port } = await detach(env);
    const login = await runCli(["login", "--upstream", upstream.url, "--stdin", "--no-verify"], env, FAKE_UPSTREAM_KEY);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      `The gateway running on http://127.0.0.1:${port} does not use it: it serves echo. Restart it to serve ${upstream.url}: gateway stop, then gateway start`,
    );
  });
});
