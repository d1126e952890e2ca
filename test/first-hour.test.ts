import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, cliEnv, recordOutput, runCli } from "./helpers/cli.js";
import { cliUsers, detachGateway } from "./helpers/cli-users.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { freePort } from "./helpers/free-port.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";

/** Issue 26's first hour, items 4, 5, 8, 9, 10 and 14: what the commands say about the gateway they talk to. */
const { user, privateDir } = cliUsers("first-hour-");

const servers: Server[] = [];
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  // the ports a test held (cliUsers stops every gateway a test started)
  for (const server of servers.splice(0)) server.close();
  await upstream?.close();
  upstream = undefined;
});

/** Holds `port` (any free one when 0) with a program that is not a gateway; it reads, so it sees probes hang up. */
async function hold(port = 0): Promise<number> {
  const server = createServer((socket) => socket.resume());
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

const detach = detachGateway;

describe("another user's gateway on the port (item 4)", () => {
  it("is named as not yours by status, env, run, ui, start --detach, doctor and stop, with a free port to use instead", async () => {
    const alice = await user();
    const { port, pid } = await detach(alice);
    // Bob has his own config directory, so his own local key, and the same configured port.
    const bob = await user({ GATEWAY_PORT: String(port) });
    const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    expect(health.keyFingerprint).toMatch(/^[0-9a-f]{16}$/);
    const aliceKey = readFileSync(join(alice.env.GATEWAY_CONFIG_DIR!, "local-key"), "utf8").trim();
    expect(JSON.stringify(health)).not.toContain(aliceKey);

    const notYours = `✖ The gateway on port ${port} is not yours: it does not accept your local key (it is another user's, or was started with another config directory or GATEWAY_LOCAL_KEY).`;
    const fix = /ℹ Start your own on a free port: `gateway start --detach --port (\d+)` \(env, run, status and ui then find it\)\./;
    for (const args of [["status"], ["run", "--", "node", "-e", "0"], ["ui", "--no-open"], ["start", "--detach"], ["stop"]]) {
      const result = await runCli(args, bob.env);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(notYours);
      const [, free] = fix.exec(result.stderr)!;
      expect(Number(free)).not.toBe(port);
    }
    const env = await runCli(["env"], bob.env);
    expect(env.code).toBe(0);
    expect(env.stdout).toContain(`export OPENAI_BASE_URL='http://127.0.0.1:${port}/v1'`);
    expect(env.stderr).toContain(notYours.replace("✖", "⚠"));
    const doctor = await runCli(["doctor"], bob.env);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain(`✖ Port ${port}: a gateway that is not yours answers there (it does not accept your local key)`);
    // Alice's gateway is untouched, and still hers
    const mine = await runCli(["status"], alice.env);
    expect(mine.code).toBe(0);
    expect(mine.stderr).toContain(`is running on http://127.0.0.1:${port} (pid ${pid}`);
  });
});

describe("status says what a newcomer needs (items 8 and 10)", () => {
  it("lists every running gateway, the dashboard URL and the capture mode; start says capture is on", async () => {
    const u = await user();
    const first = await detach(u, "--port", "0");
    const second = await detach(u, "--port", "0", "--capture");
    expect(second.stderr).toContain("  Capture: every request's bodies kept in memory (the dashboard, gateway logs --show)");
    expect(readFileSync(join(u.env.GATEWAY_STATE_DIR!, "gateway-any-port.log"), "utf8")).toContain("  Capture          every request's bodies kept in memory");
    const status = await runCli(["status"], u.env);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`✔ Gateway`);
    expect(status.stderr).toContain(`is running on http://127.0.0.1:${second.port} (pid ${second.pid}`);
    expect(status.stderr).toContain(`  Dashboard: http://127.0.0.1:${second.port}/ui/ (\`gateway ui\` opens it with the key)`);
    expect(status.stderr).toContain("  Capture:   all (bodies kept in memory: the dashboard, gateway logs --show)");
    expect(status.stderr).toMatch(new RegExp(`  Also running: http://127\\.0\\.0\\.1:${first.port} \\(pid ${first.pid}, up .+\\) \\(-p ${first.port}\\)`));
    const help = await runCli(["start", "--help"], u.env);
    expect(help.stdout).toContain("(--capture alone: all)");
  });

  it("status names the variable to set for an upstream whose key comes from the environment, not a login it does not need", async () => {
    upstream = await startFakeUpstream();
    const file = { upstream: "main", upstreams: { main: { url: upstream.url }, team: { url: upstream.url, key: "env:TEAM_KEY", models: ["team-*"] } } };
    const u = await user({ GATEWAY_API_KEY: FAKE_UPSTREAM_KEY }, file);
    await detach(u);
    const status = await runCli(["status"], { ...u.env, TEAM_KEY: undefined });
    expect(status.stderr).toMatch(/But requests routed to team get 503: no upstream key\.\n/);
    expect(status.stderr).toContain("ℹ Set TEAM_KEY in the gateway's environment and restart it.");
    expect(status.stderr).not.toContain("gateway login");
  });
});

describe("doctor reports one cause once (item 8)", () => {
  it("without a keychain: one ✖ for the keychain, the key that lives there not checked, the key check skipped", async () => {
    upstream = await startFakeUpstream();
    const u = await user({ GATEWAY_UPSTREAM: upstream.url, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined });
    const doctor = await runCli(["doctor"], u.env);
    const out = doctor.stderr;
    expect(doctor.code).toBe(1);
    expect(out).toContain("✖ OS keychain: The OS keychain is not available: no D-Bus session bus");
    expect(out).toContain("– Upstream key: not checked, the OS keychain is not available (above)");
    expect(out).toContain(`✔ Upstream ${upstream.url} reachable (HTTP 401)`);
    expect(out).toContain("– Upstream key check skipped: there is no key to send");
    expect(out.match(/^✖/gm)).toHaveLength(2);
    expect(out).toMatch(/\n✖ 1 check failed\.\n/);
  });
});

describe("hints name the fix that applies (item 9)", () => {
  it("a port held by your own gateway says gateway stop; one held by another program suggests a port that is free", async () => {
    const u = await user();
    const { port, pid } = await detach(u);
    const again = await runCli(["start", "--port", String(port)], u.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `✖ A gateway of yours is already running on port ${port} (pid ${pid}).\nℹ Use it as it is (\`gateway status -p ${port}\`), or stop it first: \`gateway stop -p ${port}\`.\n`,
    );
    // two busy ports in a row: the hint skips both
    const busy = await hold();
    let next = busy + 1;
    try {
      await hold(next);
    } catch {
      next = busy; // someone else holds it: busy + 1 is busy either way
    }
    const blocked = await runCli(["start", "--port", String(busy)], u.env);
    expect(blocked.code).toBe(1);
    const [, suggested] = /start on a free port: `gateway start --port (\d+)`/.exec(blocked.stderr)!;
    expect([busy, next]).not.toContain(Number(suggested));
  });

  it("hints carry the -p the user gave, and env -p says when nothing runs there", async () => {
    const u = await user();
    const nothing = await freePort();
    const env = await runCli(["env", "-p", String(nothing)], u.env);
    expect(env.code).toBe(0);
    expect(env.stdout).toContain(`export OPENAI_BASE_URL='http://127.0.0.1:${nothing}/v1'`);
    expect(env.stderr).toBe(`⚠ No gateway is running on port ${nothing}: tools pointed there find nothing until you run \`gateway start -p ${nothing}\`.\n`);
    const status = await runCli(["status", "-p", String(nothing)], u.env);
    expect(status.stderr).toContain(`ℹ Start one with \`gateway start -p ${nothing}\` (or \`gateway start --detach -p ${nothing}\`).`);
    const run = await runCli(["run", "--no-start", "-p", String(nothing), "node", "-e", "0"], u.env);
    expect(run.stderr).toContain(`ℹ Start one with \`gateway start --detach -p ${nothing}\`, or drop --no-start.`);
    // without -p, nothing running on the configured port is what a shell profile meets before any gateway runs: no warning
    expect((await runCli(["env"], u.env)).stderr).toBe("");
  });
});

describe("gateway ui where no browser can open (item 5)", () => {
  it("prints the URL, as --no-open does, when there is no display", async () => {
    const u = await user({ DISPLAY: undefined, WAYLAND_DISPLAY: undefined });
    const ui = await runCli(["ui"], u.env);
    expect(ui.code).toBe(0);
    expect(ui.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#key=gw-[\w-]+\n$/);
    expect(ui.stderr).toContain("⚠ Could not open a browser: there is no display (DISPLAY and WAYLAND_DISPLAY are unset). Open this URL in one (it holds your local key):");
    expect(ui.stderr).not.toContain("Opened the dashboard");
  });

  it.skipIf(process.platform !== "linux")("prints the URL when the launcher fails", async () => {
    // A KDE session without KDE's opener: xdg-open exits 4 ("the action failed")
    const u = await user({ DISPLAY: ":99", XDG_CURRENT_DESKTOP: "KDE", KDE_SESSION_VERSION: "5" });
    const ui = await runCli(["ui"], u.env);
    expect(ui.code).toBe(0);
    expect(ui.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#key=gw-[\w-]+\n$/);
    expect(ui.stderr).toMatch(/⚠ Could not open a browser: the launcher \(.*xdg-open\) exited with code [1-9]\d*\. Open this URL in one/);
  });
});

describe.skipIf(!hasTmux)("Ctrl-C on a foreground gateway (item 14)", () => {
  it("says how many requests are open, lets them finish, and ends with a stopped line", async () => {
    upstream = await startFakeUpstream();
    upstream.behaviour.chunkDelayMs = 300;
    const port = await freePort();
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_STATE_DIR: privateDir(), GATEWAY_API_KEY: FAKE_UPSTREAM_KEY, GATEWAY_LOCAL_KEY: "gw-ctrl-c-test-key" });
    const terminal = openTerminal("gateway-ctrl-c", `${envPrefix(env)} ${process.execPath} ${BIN} start --port ${port} --upstream ${upstream.url}`, { columns: 100, rows: 40 });
    try {
      await terminal.waitFor(/listening on/, 15_000);
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer gw-ctrl-c-test-key", "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "one two three four" }] }),
      });
      const body = response.text();
      terminal.keys("C-c");
      const screen = await terminal.waitFor(/EXITED \d+/, 15_000);
      recordOutput(["start (terminal, Ctrl-C)"], screen, "");
      expect(screen).toContain("ℹ Shutting down: 1 request open, let finish for up to 10 seconds (press Ctrl-C again to quit now).");
      expect(screen).toMatch(/POST \/v1\/chat\/completions m 200 [\s\S]*✔ Gateway stopped\.\nEXITED 0/);
      expect(await body).toContain("data: [DONE]");
    } finally {
      terminal.close();
    }
  });
});

const npmMajor = Number(/^(\d+)/.exec(spawnSync("npm", ["--version"]).stdout?.toString() ?? "")?.[1] ?? 0);

describe("install noise (item 14)", () => {
  // npm 11 warns about every dependency install script that package.json neither allows nor denies; npm 10 runs them all, silently.
  it.skipIf(npmMajor < 11)("npm has no install script left to review, so npm install prints no warning about them", () => {
    const listed = spawnSync("npm", ["install-scripts", "ls"], { cwd: new URL("..", import.meta.url).pathname, encoding: "utf8" });
    expect(listed.status).toBe(0);
    expect(listed.stdout.trim()).toBe("No packages with unreviewed install scripts.");
  });
});
