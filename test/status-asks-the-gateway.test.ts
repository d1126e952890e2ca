import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { detach, useConfigurations } from "./helpers/detached.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";

/**
 * Issue 37, item 17: whether a running gateway has each upstream's key is the gateway's to say, not the shell's that
 * runs `gateway status` (which may lack the D-Bus address, or have other variables). `status` asks the gateway (an
 * endpoint behind the local key, which says whether each key is there and where it comes from, never the key), and
 * reads the keychain itself only when no gateway of this configuration runs.
 */

const { configuration } = useConfigurations("status-asks-");
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

describe("gateway status asks the running gateway about its keys (item 17)", () => {
  it("a gateway that took its key from GATEWAY_API_KEY has it, though the shell running status has neither that nor a keychain", async () => {
    upstream = await startFakeUpstream();
    const env = await configuration({ GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY });
    const { port } = await detach(env);
    const status = await runCli(["status"], { ...env, GATEWAY_API_KEY: undefined, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined });
    expect(status.code).toBe(0);
    expect(status.stderr).toContain("Key:       from GATEWAY_API_KEY (overrides the keychain)\n");
    expect(status.stderr).toMatch(new RegExp(`✔ Gateway \\S+ is running on http://127\\.0\\.0\\.1:${port} `));
    expect(status.stderr).not.toContain("503");
    expect(status.stderr).not.toContain("keychain is not available");
  });

  it("an upstream whose variable the gateway lacks gets 503, though the shell running status has it set", async () => {
    upstream = await startFakeUpstream();
    const file = { upstream: "main", upstreams: { main: { url: upstream.url }, team: { url: upstream.url, key: "env:TEAM_KEY", models: ["team-*"] } } };
    const env = await configuration({ GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, TEAM_KEY: undefined }, file);
    await detach(env);
    const status = await runCli(["status"], { ...env, TEAM_KEY: "sk-team-set-in-this-shell-only" });
    expect(status.stderr).toMatch(/^ {2}team +generic +\S+ +chat,responses,messages,gemini +✖ from \$TEAM_KEY \(unset\)$/m);
    expect(status.stderr).toMatch(/But requests routed to team get 503: no upstream key\.\n/);
    expect(status.stderr).toContain("ℹ Set TEAM_KEY in the gateway's environment and restart it.");
  });

  it("the endpoint it asks needs the local key and says where each key comes from, never the key", async () => {
    upstream = await startFakeUpstream();
    const env = await configuration({ GATEWAY_UPSTREAM: upstream.url, GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: "gw-status-asks-0123456789" });
    const { port } = await detach(env);
    const without = await fetch(`http://127.0.0.1:${port}/ui/api/upstreams`);
    expect(without.status).toBe(401);
    const res = await fetch(`http://127.0.0.1:${port}/ui/api/upstreams`, { headers: { authorization: "Bearer gw-status-asks-0123456789" } });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toEqual({ upstreams: [{ name: "default", key: { source: "env", present: true, describe: "from GATEWAY_API_KEY (overrides the keychain)" } }] });
    expect(text).not.toContain(FAKE_UPSTREAM_KEY);
  });
});

const keyring = process.env.GATEWAY_TEST_KEYRING === "1";
describe.skipIf(!keyring)("with the key in a real Secret Service (item 17)", () => {
  it("status in a shell without DBUS_SESSION_BUS_ADDRESS says the running gateway has its keychain key", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.key = GOOD_LOGIN_KEY;
    const env = await configuration({ GATEWAY_UPSTREAM: upstream.url, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
    expect((await runCli(["login", "--stdin", "--no-verify"], env, GOOD_LOGIN_KEY)).code).toBe(0);
    try {
      const { port } = await detach(env);
      const status = await runCli(["status"], { ...env, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined });
      expect(status.code).toBe(0);
      expect(status.stderr).toContain(`Key:       stored in the OS keychain for ${upstream.url}\n`);
      expect(status.stderr).toMatch(new RegExp(`✔ Gateway \\S+ is running on http://127\\.0\\.0\\.1:${port} `));
      expect(status.stderr).not.toContain("503");
      // Once the key is gone, the gateway forwards nothing (within 5 s, SPEC 8), and status, asking it, says so.
      expect((await runCli(["logout"], env)).code).toBe(0);
      let after = "";
      await expect.poll(async () => (after = (await runCli(["status"], env)).stderr), { timeout: 10_000, interval: 500 }).toContain("But every request gets 503: no upstream key.");
      expect(after).toContain(`Key:       ✖ none stored for ${upstream.url}: run \`gateway login\``);
      expect(after).toContain("ℹ Run `gateway login`, or set GATEWAY_API_KEY.");
    } finally {
      await runCli(["logout"], env);
    }
  });
});
