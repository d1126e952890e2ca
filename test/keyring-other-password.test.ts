import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cliEnv, runCli } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { GOOD_LOGIN_KEY } from "./helpers/secrets.js";

/**
 * Issue 37, item 24: a login keyring made under one password, and gnome-keyring started again with another (a new
 * KEYRING_PASSWORD, a typo after a reboot). The daemon cannot unlock the keyring, and with no display it cannot ask:
 * every read and write fails with libsecret's "unlock prompt was dismissed". The gateway says what that means and
 * what to do, and doing it (the keyring's own password) works.
 */

const has = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
const canRun = has("dbus-run-session") && has("gnome-keyring-daemon") && has("dbus-send");
if (!canRun && process.env.CI) throw new Error("the keyring password test needs dbus-run-session and gnome-keyring-daemon (apt-get install dbus gnome-keyring)");

interface Session {
  /** The environment every program of the session gets: its bus, its keyring directory. */
  env: NodeJS.ProcessEnv;
  /** Starts gnome-keyring's Secret Service with `password` on its standard input, as the README's recipe does. */
  startKeyring(password: string): Promise<void>;
  /** Runs `command` (`sh -c`) with KEYRING_PASSWORD set, where it replaces the running Secret Service; then tracks the new one. */
  replaceKeyring(command: string, password: string): Promise<void>;
  stopKeyring(): Promise<void>;
  close(): Promise<void>;
}

const sessions: Session[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
});

/** A private D-Bus session (`dbus-run-session`, kept open until `close`) with a keyring directory of its own. */
async function openSession(): Promise<Session> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-keyring-password-"));
  const bus = spawn("dbus-run-session", ["--", "sh", "-c", 'echo "$DBUS_SESSION_BUS_ADDRESS"; read _'], { stdio: ["pipe", "pipe", "ignore"] });
  const [address] = (await once(bus.stdout!, "data")) as [Buffer];
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DBUS_SESSION_BUS_ADDRESS: address.toString().trim(), XDG_DATA_HOME: join(dir, "data"), XDG_RUNTIME_DIR: dir };
  let keyring: ChildProcess | undefined;
  // A daemon that forked itself away (`--replace`): not our child, so known by the pid the bus gives.
  let replaced: number | undefined;
  const owned = () => spawnSync("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"], { env }).stdout.toString().includes("boolean true");
  const session: Session = {
    env,
    async startKeyring(password) {
      keyring = spawn("gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"], { env, stdio: ["pipe", "ignore", "ignore"] });
      keyring.stdin!.end(password);
      await vi.waitFor(() => expect(owned(), "the Secret Service is on the bus").toBe(true), { timeout: 10_000, interval: 50 });
    },
    async replaceKeyring(command, password) {
      const previous = keyring && keyring.exitCode === null ? once(keyring, "exit") : undefined;
      const result = spawnSync("sh", ["-c", command], { env: { ...env, KEYRING_PASSWORD: password }, stdio: "ignore" });
      expect(result.status).toBe(0);
      await previous;
      await vi.waitFor(() => expect(owned(), "the Secret Service is on the bus").toBe(true), { timeout: 10_000, interval: 50 });
      const reply = spawnSync("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.secrets"], { env }).stdout.toString();
      replaced = Number(/uint32 (\d+)/.exec(reply)![1]);
    },
    async stopKeyring() {
      if (replaced !== undefined) {
        process.kill(replaced, "SIGTERM");
        replaced = undefined;
      } else if (keyring && keyring.exitCode === null) {
        const exited = once(keyring, "exit");
        keyring.kill("SIGTERM");
        await exited;
      } else return;
      await vi.waitFor(() => expect(owned(), "the Secret Service left the bus").toBe(false), { timeout: 10_000, interval: 50 });
    },
    async close() {
      await session.stopKeyring();
      const ended = once(bus, "exit");
      bus.stdin!.end("\n");
      await ended;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  sessions.push(session);
  return session;
}

describe.skipIf(!canRun)("a keyring that exists under another password (item 24)", () => {
  it("login and doctor say the keyring is locked and how to unlock it; restarting with its own password works", async () => {
    const session = await openSession();
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir(), GATEWAY_UPSTREAM: "https://gateway.example.com", GATEWAY_PORT: "1", ...session.env });
    await session.startKeyring("the-first-password");
    const stored = await runCli(["login", "--stdin", "--no-verify"], env, GOOD_LOGIN_KEY);
    expect(stored.code, stored.stderr).toBe(0);
    await session.stopKeyring();

    await session.startKeyring("another-password");
    const message = "The OS keychain is not available: reading the keychain failed: the keyring is locked, and the prompt to unlock it was dismissed (with no display, gnome-keyring cannot ask for the password: it was started with another password than the keyring's, or with none)";
    const hint =
      'Restart it with the keyring\'s own password: printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --replace --unlock --components=secrets. Forgot it? Move ~/.local/share/keyrings/login.keyring away (the keys in it are lost), restart it with a new password, and run `gateway login` again. Or set GATEWAY_API_KEY in the environment to the upstream key.';
    const login = await runCli(["login", "--stdin", "--no-verify"], env, GOOD_LOGIN_KEY);
    expect(login.code).toBe(1);
    expect(login.stderr).toBe(`✖ ${message}.\nℹ ${hint}\n`);
    const doctor = await runCli(["doctor"], env);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain(`✖ OS keychain: ${message.replace("reading the keychain", "writing to the keychain")}\n    fix: ${hint}\n`);
    // The hint's own command, as written, with the keyring's password.
    await session.replaceKeyring(/Restart it with the keyring's own password: (.+?)\. Forgot it\?/.exec(hint)![1]!, "the-first-password");
    const status = await runCli(["status"], env);
    expect(status.stderr).toContain("Key:       stored in the OS keychain for https://gateway.example.com");
    expect((await runCli(["logout"], env)).code).toBe(0);
  });
});
