import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdirSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, sep } from "node:path";
import { resolveConfigDir } from "../config/config-dir.js";
import { resolveStateDir } from "../config/state-dir.js";
import { FailedError } from "../errors/index.js";
import { checkPrivateDir, readRegularFile, writePrivateFile } from "../files/private-files.js";
import { isOurs, serviceEnvFile, type ServiceSpec } from "./service-files.js";
import type { ManagerAnswer, ManagerCall, ServicePlatform } from "./service-platform.js";

/** Where `install`, `uninstall` and `status` say what they did, line by line. */
export interface ServiceReport {
  success: (line: string) => void;
  info: (line: string) => void;
  warn: (line: string) => void;
}

/** The command `name` on PATH, as a shell would find it; undefined when it is not there. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const firstLine = (answer: ManagerAnswer): string => answer.stderr.trim().split("\n")[0] || `exit ${answer.code}`;

const shown = (platform: ServicePlatform, call: ManagerCall) => [platform.manager, ...call.args].join(" ");

function callManager(path: string, call: ManagerCall): ManagerAnswer {
  const run = spawnSync(path, call.args, { encoding: "utf8", timeout: 30_000 });
  return { code: run.status ?? 1, stdout: run.stdout ?? "", stderr: run.stderr || run.error?.message || "" };
}

/**
 * A user service belongs to the user who runs the command, in their own HOME. Under sudo, HOME may still be the
 * caller's, and the unit would be root's file in another user's folder, enabled for root: refused. Root's own
 * login (a container, a VM) is served like any user.
 */
function checkOwnHome(): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  if (uid === 0 && process.env.SUDO_UID !== undefined) {
    throw new FailedError("gateway service is not for sudo: the service is your own user's, started with your login session.", { hint: "Run it again without sudo." });
  }
  const home = homedir();
  if (statSync(home).uid !== uid) {
    throw new FailedError(`Your HOME (${home}) belongs to another user; gateway service writes only into your own.`, { hint: "Run it as the user whose HOME it is." });
  }
}

/** What the service runs: this node, this install's CLI, and the directories this shell resolves. */
export function serviceSpec(bin: string): ServiceSpec {
  return { node: process.execPath, bin, configDir: resolveConfigDir(process.env), stateDir: resolveStateDir(process.env) };
}

/** The existing file at the platform's path, refused unless this command wrote it. */
function ownFile(platform: ServicePlatform): string | undefined {
  const existing = readRegularFile(platform.file);
  if (existing && !isOurs(existing.text)) {
    throw new FailedError(`${platform.file} was not written by \`gateway service install\`; it is left as it is.`, {
      hint: "Move it away yourself if the gateway should install its own.",
    });
  }
  return existing?.text;
}

/** The way out when the manager cannot be reached: `then` says what was done and what to run once it can be. */
const unreachable = (manager: string, then: string): string =>
  then.replace("%s", `once ${manager} reaches your session's service manager (a login session; on a headless box, \`loginctl enable-linger $USER\`)`);

/** A call that failed (and may not): what it said, and it with the calls after it, as a command line to run later. */
interface Stuck {
  failed: string;
  rest: string;
}

/** Runs each call, saying so, up to one that fails and may not: that one and the calls left, else undefined. */
function callsUntilStuck(platform: ServicePlatform, path: string, calls: readonly ManagerCall[], report: ServiceReport): Stuck | undefined {
  for (const [i, call] of calls.entries()) {
    const answer = callManager(path, call);
    if (answer.code === 0 || call.mayFail) {
      report.success(`${shown(platform, call)}${answer.code === 0 ? "" : " (nothing to undo)"}`);
      continue;
    }
    return { failed: `\`${shown(platform, call)}\` failed: ${firstLine(answer)}`, rest: calls.slice(i).map((next) => shown(platform, next)).join(" && ") };
  }
  return undefined;
}

/** Runs each call, saying so; a call that fails (and may not) stops here, with `then` (given what is left to run) as the hint. */
function runCalls(platform: ServicePlatform, path: string, calls: readonly ManagerCall[], report: ServiceReport, then: (rest: string) => string): void {
  const stuck = callsUntilStuck(platform, path, calls, report);
  if (stuck) throw new FailedError(stuck.failed, { hint: unreachable(platform.manager, then(stuck.rest)) });
}

/** Writes the service file (when it differs) and has the manager enable and start it. */
export function installService(platform: ServicePlatform, spec: ServiceSpec, report: ServiceReport): void {
  checkOwnHome();
  if (spec.bin.split(sep).includes("_npx")) {
    throw new FailedError(`The service would run the copy npx keeps in its cache (${spec.bin}), which npm may delete at any time.`, {
      hint: "Install the package first (npm install -g local-llm-gateway), then run `gateway service install`.",
    });
  }
  const existing = ownFile(platform);
  const content = platform.content(spec);
  const changed = existing !== content;
  checkPrivateDir(spec.stateDir);
  mkdirSync(spec.stateDir, { recursive: true, mode: 0o700 });
  if (changed) writePrivateFile(platform.file, content);
  report.success(changed ? `${existing === undefined ? "Wrote" : "Rewrote"} ${platform.file}.` : `${platform.file} is installed already, as it would be written now.`);
  warnOpenEnvFile(spec, report);
  const manager = onPath(platform.manager);
  if (!manager) {
    const calls = platform.installCalls(true, false).map((call) => shown(platform, call)).join(" && ");
    report.info(`${platform.manager} is not on PATH, so nothing was started. Where it runs your login session, start the service with: ${calls}`);
    return;
  }
  const loaded = platform.isLoaded?.(callManager(manager, platform.statusCall)) ?? false;
  runCalls(platform, manager, platform.installCalls(changed, loaded), report, (rest) => `The file is written (${platform.file}); %s, run: ${rest}`);
  report.info(`It starts with your login session and again after a failure. Its output: ${platform.output(spec)}; its requests: gateway logs. Remove it with: gateway service uninstall`);
}

/** The environment file holds a key: readable by its owner alone, or said so. */
function warnOpenEnvFile(spec: ServiceSpec, report: ServiceReport): void {
  const file = serviceEnvFile(spec.configDir);
  try {
    if ((statSync(file).mode & 0o077) !== 0) report.warn(`${file} can be read by other users, and a key in it with it: chmod 600 ${file}`);
  } catch {
    // no environment file: nothing to check
  }
}

/**
 * Stops and disables the service and removes its file; with nothing installed it says so. The file is ours (its
 * marker says so), so it goes even when the manager cannot be reached to stop the service first (no user session
 * bus): a manager that cannot be reached runs nothing of it, and the calls to run once it can are said.
 */
export function uninstallService(platform: ServicePlatform, report: ServiceReport): void {
  checkOwnHome();
  if (ownFile(platform) === undefined) {
    report.info(`No gateway service is installed (nothing at ${platform.file}): nothing to remove.`);
    return;
  }
  const manager = onPath(platform.manager);
  const stuck = manager ? callsUntilStuck(platform, manager, platform.uninstallCalls.before, report) : undefined;
  if (!manager) report.info(`${platform.manager} is not on PATH: nothing to stop.`);
  rmSync(platform.file);
  report.success(`Removed ${platform.file}.`);
  if (!manager) return;
  if (!stuck) return runCalls(platform, manager, platform.uninstallCalls.after, report, (rest) => `The file is removed (${platform.file}); %s, run: ${rest}`);
  const rest = [stuck.rest, ...platform.uninstallCalls.after.map((call) => shown(platform, call))].join(" && ");
  report.warn(`${stuck.failed}. The file is removed all the same: it is the one gateway service install wrote.`);
  report.info(unreachable(platform.manager, `In case the service still runs, %s, run: ${rest}`));
}

/**
 * Says whether the service is installed and whether it runs; fails (exit 1) when it is not installed, not running,
 * or when whether it runs cannot be told (no manager to ask): a script must not read "cannot tell" as "running".
 */
export function serviceStatus(platform: ServicePlatform, spec: ServiceSpec, report: ServiceReport): void {
  if (ownFile(platform) === undefined) throw new FailedError(`No gateway service is installed (nothing at ${platform.file}).`, { hint: "Install it with: gateway service install" });
  report.success(`Installed: ${platform.file}`);
  const manager = onPath(platform.manager);
  const cannotTell = (why: string) =>
    new FailedError(`Whether it runs cannot be told here: ${why}.`, { hint: "`gateway status` says whether a gateway answers on its port." });
  if (!manager) throw cannotTell(`${platform.manager} is not on PATH`);
  const answer = callManager(manager, platform.statusCall);
  const state = platform.state(answer);
  if (state === undefined) throw cannotTell(`${shown(platform, platform.statusCall)} failed: ${firstLine(answer)}`);
  const said = `${shown(platform, platform.statusCall)}: ${state}`;
  if (state !== platform.running) throw new FailedError(`It is not running (${said}).`, { hint: `Its output says why: ${platform.output(spec)}` });
  report.success(`Running (${said}).`);
}
