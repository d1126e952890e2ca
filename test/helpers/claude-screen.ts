import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { Terminal } from "./terminal.js";

/**
 * Marks `work` as trusted in a fresh HOME's Claude Code settings, so it does not ask. 2.1.332 draws its trust
 * question twice as it settles, the second time with "No, exit" chosen again and any key sent in between lost; a test
 * about something else answers it before Claude Code starts rather than race that redraw.
 */
export function trustWorkFolder(home: string, work: string): void {
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects: { [work]: { hasTrustDialogAccepted: true } } }));
}

/**
 * Claude Code's first-run questions: what each shows, and the answer's line where Enter alone would not pick it
 * (2.1.332 puts "No, exit" first when it asks whether to trust the folder; 2.1.197 puts "Yes, proceed" first).
 */
const FIRST_RUN: { shows: RegExp; answer?: RegExp }[] = [
  { shows: /Choose the text style/ },
  { shows: /Security notes/ },
  { shows: /Quick safety check|trust the files in this folder|Do you trust/, answer: /❯ (\d+\. )?Yes/ },
];

/**
 * Takes a fresh Claude Code through its first-run questions (the theme and the security notes take Enter, trusting
 * the folder: yes) until it waits for a prompt. Enter is sent once the answer's line is chosen on the screen, and the
 * next question is read only once this one has left it or been drawn again with its first line chosen (2.1.332 redraws
 * its trust question as it settles, dropping keys sent in between): then it is answered again.
 */
export async function passClaudeFirstRun(terminal: Terminal): Promise<void> {
  // 2.1.197 shows "? for shortcuts" when ready; 2.1.332 only its banner, with no question below it.
  const ready = (screen: string) =>
    !/EXITED/.test(screen) && (/for shortcuts/.test(screen) || (/Claude Code v\d/.test(screen) && !/Enter to confirm|Press Enter to continue/.test(screen)));
  const question = (screen: string) => FIRST_RUN.find((q) => q.shows.test(screen));
  for (;;) {
    let screen = "";
    await expect.poll(() => ((screen = terminal.screen()), Boolean(question(screen)) || ready(screen)), { timeout: 30_000 }).toBe(true);
    const asked = question(screen);
    if (!asked) return;
    const { shows, answer } = asked;
    if (answer) {
      const deadline = Date.now() + 20_000;
      while (!answer.test(terminal.screen()) && Date.now() < deadline) {
        terminal.keys("Down");
        await terminal.waitFor(answer, 1_000);
      }
    }
    terminal.keys("Enter");
    await expect.poll(() => ((screen = terminal.screen()), !shows.test(screen) || (answer !== undefined && !answer.test(screen))), { timeout: 20_000 }).toBe(true);
  }
}

/**
 * Opens Claude Code's `/model` picker once it has read the gateway's model list (the gateway's log has the request),
 * and returns the screen once `shown` is on it. The log line is written when the gateway's reply ends, which can be
 * a moment before Claude Code has taken the list in; a picker opened in that moment shows only the built-in models
 * and does not refresh, so, as a person would, the picker is closed and opened again until `shown` is on it.
 */
export async function openModelPicker(terminal: Terminal, gatewayLog: () => string, shown: RegExp): Promise<string> {
  await expect.poll(gatewayLog, { timeout: 20_000 }).toMatch(/GET \/v1\/models\S* \S+ 200/);
  const deadline = Date.now() + 20_000;
  for (;;) {
    terminal.keys("-l", "/model");
    await terminal.waitFor(/\/model/, 5_000);
    terminal.keys("Enter");
    await terminal.waitFor(/Select model/, 10_000);
    const screen = await terminal.waitFor(shown, 2_000);
    if (shown.test(screen) || Date.now() > deadline) return screen;
    process.stderr.write("the /model picker opened before the gateway's models were in; opening it again\n");
    terminal.keys("Escape");
    await expect.poll(() => terminal.screen(), { timeout: 10_000 }).not.toMatch(/Select model/);
  }
}

/**
 * Leaves Claude Code (the picker, then the program) and closes its terminal; a session already gone (Claude Code
 * exited early) is only closed, so the test's own failure is the one reported.
 */
export function quitClaude(terminal: Terminal): void {
  if (terminal.open()) terminal.keys("Escape", "C-c", "C-c");
  terminal.close();
}
