import { spawn } from "node:child_process";
import { closeSync, constants, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GatewayProcessError } from "../errors/index.js";
import { checkPrivateDir, openRegular } from "../files/private-files.js";

/** What a detached gateway tells its parent once it listens (over the IPC channel). */
export interface ReadyMessage {
  ready: true;
  url: string;
  port: number;
  pid: number;
}

/** Where a detached gateway's output goes: one file per requested port, started afresh each time. */
export const detachedLogPath = (stateDir: string, port: number): string => join(stateDir, `gateway-${port === 0 ? "any-port" : port}.log`);

/** The last lines of a file, for the reason a detached gateway gave before it died. */
function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/**
 * Starts `gateway start <args>` in the background (its own session, output to a log file, no terminal) and
 * resolves once it listens, as it reports over IPC. A gateway that exits first rejects with the reason it printed.
 */
export function spawnDetached(binPath: string, args: readonly string[], stateDir: string, port: number, timeoutMs = 15_000): Promise<ReadyMessage & { logFile: string }> {
  checkPrivateDir(stateDir);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const logFile = detachedLogPath(stateDir, port);
  const out = openRegular(logFile, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC)!;
  const child = spawn(process.execPath, [binPath, "start", ...args], {
    detached: true,
    stdio: ["ignore", out.fd, out.fd, "ipc"],
    env: { ...process.env, GATEWAY_DETACHED_LOG: logFile },
  });
  closeSync(out.fd);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new GatewayProcessError(`The gateway did not start within ${timeoutMs / 1000} s.`, { hint: `See its output in ${logFile}.` })), timeoutMs);
    function finish(result: Error | ReadyMessage) {
      clearTimeout(timer);
      child.removeAllListeners();
      if (child.connected) child.disconnect();
      child.unref();
      if (result instanceof Error) reject(result);
      else resolve({ ...result, logFile });
    }
    child.on("message", (message: Partial<ReadyMessage>) => {
      if (message.ready) finish(message as ReadyMessage);
    });
    child.on("exit", (code) => {
      const said = tail(logFile, 3).replace(/^[✖ℹ⚠] /gm, "");
      finish(new GatewayProcessError(`The gateway exited before it was ready (exit ${code})${said ? `: ${said}` : "."}`, { hint: `Its output is in ${logFile}.` }));
    });
    child.on("error", (error) => finish(new GatewayProcessError(`Cannot start the gateway: ${error.message}`)));
  });
}
