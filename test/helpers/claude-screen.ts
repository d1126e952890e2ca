import { expect } from "vitest";
import type { Terminal } from "./terminal.js";

/**
 * Takes a fresh Claude Code through its first-run questions (the theme, the security notes, trusting the folder;
 * each takes Enter, the folder: yes) until it waits for a prompt.
 */
export async function passClaudeFirstRun(terminal: Terminal): Promise<void> {
  const firstRun = /Choose the text style|Enter to confirm|Press Enter to continue/;
  // 2.1.197 shows "? for shortcuts" when ready; 2.1.332 only its banner, with no question below it.
  const ready = (screen: string) => /for shortcuts/.test(screen) || (/Claude Code v\d/.test(screen) && !firstRun.test(screen));
  for (;;) {
    let screen = "";
    await expect.poll(() => ((screen = terminal.screen()), firstRun.test(screen) || ready(screen)), { timeout: 30_000 }).toBe(true);
    if (ready(screen)) return;
    // 2.1.332 offers "No, exit" first when it asks whether to trust the folder.
    if (/❯ No, exit/.test(screen)) terminal.keys("Down");
    terminal.keys("Enter");
    await expect.poll(() => terminal.screen(), { timeout: 20_000 }).not.toBe(screen);
  }
}

/**
 * Opens Claude Code's `/model` picker once it has read the gateway's model list (the gateway's log has the request),
 * and returns the screen once `shown` is on it.
 */
export async function openModelPicker(terminal: Terminal, gatewayLog: () => string, shown: RegExp): Promise<string> {
  await expect.poll(gatewayLog, { timeout: 20_000 }).toMatch(/GET \/v1\/models\S* \S+ 200/);
  terminal.keys("-l", "/model");
  terminal.keys("Enter");
  return terminal.waitFor(shown, 20_000);
}

/** Leaves Claude Code (the picker, then the program) and closes its terminal. */
export function quitClaude(terminal: Terminal): void {
  terminal.keys("Escape");
  terminal.keys("C-c");
  terminal.keys("C-c");
  terminal.close();
}
