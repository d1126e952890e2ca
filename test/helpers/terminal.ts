import { execFileSync, spawnSync } from "node:child_process";

/** Terminal programs are tested in tmux, as a person uses them: keys in, the screen out. */
export const hasTmux = spawnSync("sh", ["-c", "command -v tmux"]).status === 0;
if (!hasTmux && process.env.CI) throw new Error("tmux is needed for the terminal tests (apt-get install tmux)");

const tmux = (...args: string[]) => execFileSync("tmux", args).toString();
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
    close: () => void spawnSync("tmux", ["kill-session", "-t", session]),
  };
}
