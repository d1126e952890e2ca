import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { installService, serviceSpec, uninstallService, type ServiceReport } from "../src/service/manage-service.js";
import { LAUNCHD_LABEL } from "../src/service/service-files.js";
import { servicePlatform } from "../src/service/service-platform.js";
import { BIN, cliEnv, runCli } from "./helpers/cli.js";
import { privateDir } from "./helpers/tools.js";

/**
 * `gateway service` in a private HOME: the unit as systemd-analyze reads it, the agent as a plist parser reads it,
 * the exact calls to a stand-in systemctl or launchctl that records them, and no file but its own touched.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const hasAnalyze = spawnSync("sh", ["-c", "command -v systemd-analyze"]).status === 0;
if (!hasAnalyze && process.env.CI) throw new Error("systemd-analyze (Debian's systemd package) is needed to verify the unit; .ci/run installs it");

/** A private HOME and a bin directory for stand-ins; PATH is that directory alone, so the machine's systemctl is not found. */
function setUp() {
  const home = privateDir("service-home-");
  const bin = join(home, "stand-ins");
  mkdirSync(bin);
  dirs.push(home);
  const calls = join(home, "calls.log");
  const env = cliEnv({ HOME: home, PATH: bin, CALLS: calls, XDG_STATE_HOME: undefined, XDG_CONFIG_HOME: undefined });
  const unit = join(home, ".config", "systemd", "user", "gateway.service");
  const recorded = () => (existsSync(calls) ? readFileSync(calls, "utf8").trimEnd().split("\n") : []);
  const clearCalls = () => rmSync(calls, { force: true });
  return { home, bin, env, unit, recorded, clearCalls, service: (...args: string[]) => runCli(["service", ...args], env) };
}

/** A stand-in service manager that records each call's arguments, answers with `script` (a shell `case` on "$*"), then exits. */
function standIn(bin: string, name: string, script = "") {
  writeFileSync(join(bin, name), `#!/bin/sh\necho "$*" >> "$CALLS"\ncase "$*" in\n${script}\nesac\nexit 0\n`, { mode: 0o755 });
}

describe("gateway service on Linux, systemctl absent", () => {
  it("writes a unit systemd-analyze verify accepts, says what to run, and installs and uninstalls twice without harm", async () => {
    const { home, unit, service } = setUp();
    mkdirSync(join(home, ".config", "gateway"), { recursive: true });
    writeFileSync(join(home, ".config", "gateway", "service.env"), "GATEWAY_API_KEY=sk-service-env-0123\n", { mode: 0o644 });
    const first = await service("install");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe(
      [
        `✔ Wrote ${unit}.`,
        `⚠ ${home}/.config/gateway/service.env can be read by other users, and a key in it with it: chmod 600 ${home}/.config/gateway/service.env`,
        "ℹ systemctl is not on PATH, so nothing was started. Where it runs your login session, start the service with: systemctl --user daemon-reload && systemctl --user enable gateway.service && systemctl --user restart gateway.service",
        "",
      ].join("\n"),
    );
    const text = readFileSync(unit, "utf8");
    expect(text.split("\n")[0]).toBe("# Written by `gateway service install`; `gateway service uninstall` removes it.");
    expect(text).toContain(`\nExecStart="${process.execPath}" "${BIN}" "start" "--quiet"\n`);
    expect(text).toContain(`\nEnvironment="GATEWAY_CONFIG_DIR=${home}/.config/gateway" "GATEWAY_STATE_DIR=${home}/.local/state/gateway"\n`);
    expect(text).toContain(`\nEnvironmentFile=-${home}/.config/gateway/service.env\n`);
    expect(text).toContain("\nRestart=on-failure\n");
    expect(text).toContain("\n[Install]\nWantedBy=default.target\n");
    expect(text).not.toContain("sk-service-env");

    const mtime = statSync(unit).mtimeMs;
    const second = await service("install");
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`✔ ${unit} is installed already, as it would be written now.\n`);
    expect(statSync(unit).mtimeMs).toBe(mtime);
    // Issue 47 item 19: it cannot tell, so it does not exit 0.
    const status = await service("status");
    expect(status.code, status.stderr).toBe(1);
    expect(status.stderr).toBe(`✔ Installed: ${unit}\n✖ Whether it runs cannot be told here: systemctl is not on PATH.\nℹ \`gateway status\` says whether a gateway answers on its port.\n`);

    expect((await service("uninstall")).stderr).toBe(`ℹ systemctl is not on PATH: nothing to stop.\n✔ Removed ${unit}.\n`);
    expect(existsSync(unit)).toBe(false);
    const again = await service("uninstall");
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(`ℹ No gateway service is installed (nothing at ${unit}): nothing to remove.\n`);
    const none = await service("status");
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`✖ No gateway service is installed (nothing at ${unit}).\nℹ Install it with: gateway service install\n`);
  });

  it.skipIf(!hasAnalyze)("the unit passes systemd-analyze verify as a user unit, which does refuse a broken one", async () => {
    const { home, unit, service } = setUp();
    expect((await service("install")).code).toBe(0);
    const runtime = join(home, "runtime");
    mkdirSync(runtime, { mode: 0o700 });
    const verify = (file: string) => spawnSync("systemd-analyze", ["verify", "--user", file], { env: { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime }, encoding: "utf8" });
    const good = verify(unit);
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout + good.stderr).toBe("");
    const broken = join(home, "broken.service");
    writeFileSync(broken, readFileSync(unit, "utf8").replace("Restart=on-failure", "Restart=sometimes").replace(process.execPath, "/nonexistent/node"));
    const bad = verify(broken);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("Failed to parse service restart specifier");
  });

  it("never touches a unit it did not write, nor follows a link", async () => {
    const { home, unit, service } = setUp();
    mkdirSync(join(home, ".config", "systemd", "user"), { recursive: true });
    writeFileSync(unit, "[Service]\nExecStart=/usr/bin/true\n");
    for (const command of ["install", "uninstall", "status"]) {
      const result = await service(command);
      expect(result.code, command).toBe(1);
      expect(result.stderr, command).toContain(`✖ ${unit} was not written by \`gateway service install\`; it is left as it is.`);
    }
    expect(readFileSync(unit, "utf8")).toBe("[Service]\nExecStart=/usr/bin/true\n");
    rmSync(unit);
    const elsewhere = join(home, "someone-elses.service");
    writeFileSync(elsewhere, "# Written by `gateway service install`; `gateway service uninstall` removes it.\n");
    symlinkSync(elsewhere, unit);
    const linked = await service("install");
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain(`✖ ${unit} is a symbolic link; gateway only uses regular files there.`);
    expect((await service("uninstall")).code).toBe(1);
    expect(readFileSync(elsewhere, "utf8")).toBe("# Written by `gateway service install`; `gateway service uninstall` removes it.\n");
  });

  it.skipIf(process.getuid?.() !== 0)("as root: refuses sudo and a HOME that is another user's, and writes nothing", async () => {
    const { home, unit, env } = setUp();
    const sudo = await runCli(["service", "install"], { ...env, SUDO_UID: "1000", SUDO_USER: "someone" });
    expect(sudo.code).toBe(1);
    expect(sudo.stderr).toBe("✖ gateway service is not for sudo: the service is your own user's, started with your login session.\nℹ Run it again without sudo.\n");
    chownSync(home, 65534, 65534);
    const theirs = await runCli(["service", "install"], env);
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain(`✖ Your HOME (${home}) belongs to another user; gateway service writes only into your own.`);
    expect(existsSync(unit)).toBe(false);
  });
});

describe("gateway service on Linux, with systemctl", () => {
  it("enables and starts the unit with exactly these calls, restarts it only when it changed, and disables it on uninstall", async () => {
    const { bin, unit, recorded, clearCalls, service } = setUp();
    standIn(bin, "systemctl", '"--user is-active gateway.service") echo active ;;');
    const first = await service("install");
    expect(first.code, first.stderr).toBe(0);
    expect(recorded()).toEqual(["--user daemon-reload", "--user enable gateway.service", "--user restart gateway.service"]);
    expect(first.stderr).toBe(
      [
        `✔ Wrote ${unit}.`,
        "✔ systemctl --user daemon-reload",
        "✔ systemctl --user enable gateway.service",
        "✔ systemctl --user restart gateway.service",
        `ℹ It starts with your login session and again after a failure. Its output: journalctl --user -u gateway; its requests: gateway logs. Remove it with: gateway service uninstall`,
        "",
      ].join("\n"),
    );
    clearCalls();
    expect((await service("install")).code).toBe(0);
    expect(recorded()).toEqual(["--user daemon-reload", "--user enable gateway.service", "--user start gateway.service"]);
    clearCalls();
    const status = await service("status");
    expect(status.code).toBe(0);
    expect(status.stderr).toBe(`✔ Installed: ${unit}\n✔ Running (systemctl --user is-active gateway.service: active).\n`);
    expect(recorded()).toEqual(["--user is-active gateway.service"]);
    clearCalls();
    expect((await service("uninstall")).code).toBe(0);
    expect(recorded()).toEqual(["--user disable --now gateway.service", "--user daemon-reload"]);
    expect(existsSync(unit)).toBe(false);
    clearCalls();
    expect((await service("uninstall")).code).toBe(0);
    expect(recorded()).toEqual([]);
  });

  it("a systemctl that cannot reach the user manager: install says what is written and what to run, status says it cannot tell, a stopped unit is not running", async () => {
    const { bin, unit, service } = setUp();
    standIn(bin, "systemctl", '*) echo "Failed to connect to bus: No medium found" >&2; exit 1 ;;');
    const install = await service("install");
    expect(install.code).toBe(1);
    expect(install.stderr).toBe(
      [
        `✔ Wrote ${unit}.`,
        "✖ `systemctl --user daemon-reload` failed: Failed to connect to bus: No medium found",
        `ℹ The file is written (${unit}); once systemctl reaches your session's service manager (a login session; on a headless box, \`loginctl enable-linger $USER\`), run: systemctl --user daemon-reload && systemctl --user enable gateway.service && systemctl --user restart gateway.service`,
        "",
      ].join("\n"),
    );
    const unknown = await service("status");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("✖ Whether it runs cannot be told here: systemctl --user is-active gateway.service failed: Failed to connect to bus: No medium found.\n");
    // Issue 47 item 19: the file is ours (its marker), so uninstall removes it, and says what to run once it can.
    const uninstall = await service("uninstall");
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stderr).toBe(
      [
        `✔ Removed ${unit}.`,
        "⚠ `systemctl --user disable --now gateway.service` failed: Failed to connect to bus: No medium found. The file is removed all the same: it is the one gateway service install wrote.",
        "ℹ In case the service still runs, once systemctl reaches your session's service manager (a login session; on a headless box, `loginctl enable-linger $USER`), run: systemctl --user disable --now gateway.service && systemctl --user daemon-reload",
        "",
      ].join("\n"),
    );
    expect(existsSync(unit)).toBe(false);
    expect((await service("install")).code).toBe(1);
    standIn(bin, "systemctl", '"--user is-active gateway.service") echo inactive; exit 3 ;;');
    const stopped = await service("status");
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toBe(`✔ Installed: ${unit}\n✖ It is not running (systemctl --user is-active gateway.service: inactive).\nℹ Its output says why: journalctl --user -u gateway\n`);
  });
});

describe("gateway service on macOS (the launchd side, driven directly)", () => {
  const saved = { HOME: process.env.HOME, PATH: process.env.PATH, CALLS: process.env.CALLS };
  afterEach(() => Object.assign(process.env, saved));

  it("writes an agent plistlib reads with the keys launchd needs, and bootstraps, reloads and boots it out with exactly these calls", () => {
    const { home, bin, recorded, clearCalls } = setUp();
    Object.assign(process.env, { HOME: home, PATH: bin, CALLS: join(home, "calls.log") });
    const uid = process.getuid?.() ?? 0;
    const service = `gui/${uid}/${LAUNCHD_LABEL}`;
    const platform = servicePlatform("darwin")!;
    const plist = join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
    expect(platform.file).toBe(plist);
    const lines: string[] = [];
    const report: ServiceReport = { success: (line) => lines.push(`✔ ${line}`), info: (line) => lines.push(`ℹ ${line}`), warn: (line) => lines.push(`⚠ ${line}`) };
    const spec = serviceSpec(BIN);

    standIn(bin, "launchctl", `"print ${service}") echo "Could not find service" >&2; exit 113 ;;`);
    installService(platform, spec, report);
    expect(recorded()).toEqual([`print ${service}`, `enable ${service}`, `bootstrap gui/${uid} ${plist}`]);
    const parsed = spawnSync("python3", ["-c", "import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],'rb'))))", plist], { encoding: "utf8", env: { ...process.env, PATH: saved.PATH } });
    expect(parsed.status, parsed.stderr).toBe(0);
    expect(JSON.parse(parsed.stdout)).toEqual({
      Label: LAUNCHD_LABEL,
      ProgramArguments: [process.execPath, BIN, "start", "--quiet"],
      EnvironmentVariables: { GATEWAY_CONFIG_DIR: spec.configDir, GATEWAY_STATE_DIR: spec.stateDir },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      StandardOutPath: join(spec.stateDir, "gateway-service.log"),
      StandardErrorPath: join(spec.stateDir, "gateway-service.log"),
    });
    expect(lines.at(-1)).toBe(`ℹ It starts with your login session and again after a failure. Its output: ${spec.stateDir}/gateway-service.log; its requests: gateway logs. Remove it with: gateway service uninstall`);

    // Loaded and unchanged: nothing to reload. Loaded and changed: out, then in again.
    standIn(bin, "launchctl", `"print ${service}") echo "	state = running" ;;`);
    clearCalls();
    installService(platform, spec, report);
    expect(recorded()).toEqual([`print ${service}`, `enable ${service}`]);
    clearCalls();
    installService(platform, { ...spec, stateDir: join(home, "elsewhere") }, report);
    expect(recorded()).toEqual([`print ${service}`, `enable ${service}`, `bootout ${service}`, `bootstrap gui/${uid} ${plist}`]);

    clearCalls();
    uninstallService(platform, report);
    expect(recorded()).toEqual([`bootout ${service}`]);
    expect(existsSync(plist)).toBe(false);
    clearCalls();
    uninstallService(platform, report);
    expect(recorded()).toEqual([]);
    expect(lines.at(-1)).toBe(`ℹ No gateway service is installed (nothing at ${plist}): nothing to remove.`);
  });
});
