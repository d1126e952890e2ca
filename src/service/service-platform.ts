import { homedir } from "node:os";
import { join } from "node:path";
import { LAUNCHD_LABEL, launchdLogFile, launchdPlist, SYSTEMD_UNIT, systemdUnit, type ServiceSpec } from "./service-files.js";

/** One call of the service manager; `mayFail` when a failure only means there was nothing to undo. */
export interface ManagerCall {
  args: string[];
  mayFail?: boolean;
}

/** What the service manager answered to a call. */
export interface ManagerAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

/** How one platform's service manager installs, removes and reports the gateway's service. */
export interface ServicePlatform {
  /** The manager's command: `systemctl` or `launchctl`. */
  manager: string;
  /** The file `install` writes. */
  file: string;
  content: (spec: ServiceSpec) => string;
  /** The call that says whether the service is loaded and running, and how to read its answer. */
  statusCall: ManagerCall;
  /**
   * The service's state in the manager's words (`active`, `inactive`; `running`, `not loaded`), from the status
   * call; undefined when the manager could not be asked (no user bus).
   */
  state: (answer: ManagerAnswer) => string | undefined;
  /** The state that means it runs. */
  running: string;
  /** Whether the manager has the service loaded, from the status call's answer, where that changes what install runs (launchd cannot load it twice). */
  isLoaded?: (answer: ManagerAnswer) => boolean;
  /** The calls after writing the file: `changed` when it differs from what was there, `loaded` from the status call. */
  installCalls: (changed: boolean, loaded: boolean) => ManagerCall[];
  /** The calls before the file is removed, and after. */
  uninstallCalls: { before: ManagerCall[]; after: ManagerCall[] };
  /** Where the service's own output goes, in words. */
  output: (spec: ServiceSpec) => string;
}

/**
 * systemd's user manager (systemd.unit(5), "User unit search path": ~/.config/systemd/user). `restart` only when
 * the unit changed, so a second install leaves a running gateway alone; `daemon-reload` first so the manager reads
 * the file as it is now.
 */
function systemd(): ServicePlatform {
  const user = (...args: string[]) => ({ args: ["--user", ...args] });
  return {
    manager: "systemctl",
    file: join(homedir(), ".config", "systemd", "user", SYSTEMD_UNIT),
    content: systemdUnit,
    statusCall: user("is-active", SYSTEMD_UNIT),
    state: (answer) => answer.stdout.trim() || undefined,
    running: "active",
    installCalls: (changed) => [user("daemon-reload"), user("enable", SYSTEMD_UNIT), user(changed ? "restart" : "start", SYSTEMD_UNIT)],
    uninstallCalls: { before: [user("disable", "--now", SYSTEMD_UNIT)], after: [user("daemon-reload")] },
    output: () => "journalctl --user -u gateway",
  };
}

/**
 * launchd's per-user GUI domain (launchctl(1): bootstrap, bootout, print, enable). A loaded agent is booted out
 * before a changed plist is bootstrapped (launchd refuses to load a label twice); `enable` undoes an earlier
 * `launchctl disable`, which would keep it from loading.
 */
function launchd(): ServicePlatform {
  const target = `gui/${process.getuid?.() ?? 0}`;
  const service = `${target}/${LAUNCHD_LABEL}`;
  const file = join(homedir(), "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
  return {
    manager: "launchctl",
    file,
    content: launchdPlist,
    statusCall: { args: ["print", service] },
    state: (answer) => (answer.code === 0 ? (/^\s*state = (.+)$/m.exec(answer.stdout)?.[1] ?? "loaded") : "not loaded"),
    running: "running",
    isLoaded: (answer) => answer.code === 0,
    installCalls: (changed, loaded) => [
      { args: ["enable", service] },
      ...(loaded && changed ? [{ args: ["bootout", service] }] : []),
      ...(!loaded || changed ? [{ args: ["bootstrap", target, file] }] : []),
    ],
    uninstallCalls: { before: [{ args: ["bootout", service], mayFail: true }], after: [] },
    output: (spec) => launchdLogFile(spec.stateDir),
  };
}

/** The service manager of `platform`, or undefined where the gateway has none (Windows). */
export function servicePlatform(platform: NodeJS.Platform = process.platform): ServicePlatform | undefined {
  if (platform === "linux") return systemd();
  if (platform === "darwin") return launchd();
  return undefined;
}
