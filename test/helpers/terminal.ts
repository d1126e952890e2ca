import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** Terminal programs are tested in tmux, as a person uses them: keys in, the screen out. */
export const hasTmux = spawnSync("sh", ["-c", "command -v tmux"]).status === 0;
if (!hasTmux && process.env.CI) throw new Error("tmux is needed for the terminal tests (apt-get install tmux)");

/**
 * Each test process has a tmux server of its own: on the default socket every test run of the machine's user shares
 * one server, which exits when any run closes the last session while another run is opening one ("server exited
 * unexpectedly").
 */
export const TMUX_SOCKET = join(tmpdir(), `gateway-test-tmux-${process.pid}`);
// tmux leaves its socket file behind when its server exits (after the last session of a file closed).
afterAll(() => rmSync(TMUX_SOCKET, { force: true }));
const tmux = (...args: string[]) => execFileSync("tmux", ["-S", TMUX_SOCKET, ...args]).toString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `env -i NAME='value' ...`: a command line prefix that gives a program exactly `env`, whatever tmux's own is. */
export function envPrefix(env: NodeJS.ProcessEnv): string {
  const pairs = Object.entries(env).map(([name, value]) => `${name}='${(value ?? "").replace(/'/g, `'\\''`)}'`);
  return `env -i ${pairs.join(" ")}`;
}

export interface Terminal {
  /** Types `keys` (tmux key names such as `Enter` and `C-c`, or text). */
  keys(...keys: string[]): void;
  /** The screen as it is now. */
  screen(): string;
  /** The screen once it matches `pattern`, or as it is after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Whether the session is still there (it ends 30 s after its program exits). */
  open(): boolean;
  close(): void;
}

/**
 * A detached tmux session running the shell command `command`, then `echo EXITED $?` so a test can see the exit
 * code on the screen. Names are per process, so parallel test files never share a session.
 */
export function openTerminal(name: string, command: string, size = { columns: 120, rows: 30 }): Terminal {
  const session = `${name}-${process.pid}`;
  tmux("new-session", "-d", "-s", session, "-x", String(size.columns), "-y", String(size.rows), `${command}; echo EXITED $?; sleep 30`);
  return {
    keys: (...keys) => void tmux("send-keys", "-t", session, ...keys),
    screen: () => tmux("capture-pane", "-p", "-t", session),
    async waitFor(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = tmux("capture-pane", "-p", "-t", session);
        if (pattern.test(screen) || Date.now() > deadline) return screen;
        await sleep(100);
      }
    },
    open: () => spawnSync("tmux", ["-S", TMUX_SOCKET, "has-session", "-t", session]).status === 0,
    close: () => void spawnSync("tmux", ["-S", TMUX_SOCKET, "kill-session", "-t", session]),
  };
}
