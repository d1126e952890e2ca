import { setTimeout as sleep } from "node:timers/promises";

/** Whether `pid` names a live process (one of another user's counts too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * SIGTERM (the gateway's graceful drain), then waits until the process is gone, SIGKILL after `graceMs`. Polls:
 * a process that is not our child tells no one when it exits. Resolves `true` when it had to be killed.
 */
export async function stopProcess(pid: number, graceMs = 15_000): Promise<boolean> {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return false;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) {
      process.kill(pid, "SIGKILL");
      while (isAlive(pid)) await sleep(50);
      return true;
    }
    await sleep(50);
  }
  return false;
}
