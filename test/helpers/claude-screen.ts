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
