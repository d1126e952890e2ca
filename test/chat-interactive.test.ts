import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, recordOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";

const hasTmux = spawnSync("sh", ["-c", "command -v tmux"]).status === 0;
if (!hasTmux && process.env.CI) throw new Error("tmux is needed for the interactive chat test (apt-get install tmux)");

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const session = `gateway-chat-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", args).toString();

async function waitForScreen(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = tmux("capture-pane", "-p", "-t", session);
    if (pattern.test(screen) || Date.now() > deadline) return screen;
    await sleep(100);
  }
}

describe.skipIf(!hasTmux)("interactive gateway chat in a terminal", () => {
  it("keeps the conversation across two turns and exits on Ctrl-D", async () => {
    const env = `GATEWAY_CONFIG_DIR=${tempConfigDir()} GATEWAY_UPSTREAM=${upstream.url} GATEWAY_API_KEY=${FAKE_UPSTREAM_KEY} NO_COLOR=1`;
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", `env ${env} ${process.execPath} ${BIN} chat -m gpt-fake; echo EXITED $?; sleep 30`);
    try {
      // capture-pane trims the space after the "> " prompt
      await waitForScreen(/^>$/m);
      tmux("send-keys", "-t", session, "first question", "Enter");
      await waitForScreen(/fake: first question/);
      tmux("send-keys", "-t", session, "second one", "Enter");
      await waitForScreen(/fake: second one/);
      tmux("send-keys", "-t", session, "C-d");
      const screen = await waitForScreen(/EXITED \d+/);
      recordOutput(["chat (interactive)"], screen, "");
      expect(screen).toContain("fake: first question");
      expect(screen).toContain("fake: second one");
      expect(screen).toMatch(/EXITED 0/);
      const second = JSON.parse(upstream.last().body.toString()) as { messages: { role: string; content: string }[] };
      expect(second.messages).toEqual([
        { role: "user", content: "first question" },
        { role: "assistant", content: "fake: first question" },
        { role: "user", content: "second one" },
      ]);
    } finally {
      spawnSync("tmux", ["kill-session", "-t", session]);
    }
  });

  /** Starts `gateway chat` in a fresh tmux session; `run` drives it. */
  async function inTerminal(run: () => Promise<void>) {
    const env = `GATEWAY_CONFIG_DIR=${tempConfigDir()} GATEWAY_UPSTREAM=${upstream.url} GATEWAY_API_KEY=${FAKE_UPSTREAM_KEY} NO_COLOR=1`;
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", `env ${env} ${process.execPath} ${BIN} chat -m gpt-fake; echo EXITED $?; sleep 30`);
    try {
      await waitForScreen(/^>$/m);
      await run();
    } finally {
      spawnSync("tmux", ["kill-session", "-t", session]);
    }
  }

  it("Ctrl-C at an empty prompt ends the session with exit 0", async () => {
    await inTerminal(async () => {
      tmux("send-keys", "-t", session, "C-c");
      const screen = await waitForScreen(/EXITED \d+/);
      recordOutput(["chat (interactive, Ctrl-C at the prompt)"], screen, "");
      expect(screen).toMatch(/EXITED 0/);
    });
  });

  it("Ctrl-C during a reply stops only the reply; Ctrl-C at the next prompt exits 0", async () => {
    upstream.behaviour.chunkDelayMs = 400;
    try {
      await inTerminal(async () => {
        tmux("send-keys", "-t", session, "a b c d e f g h i j", "Enter");
        await waitForScreen(/fake: /);
        tmux("send-keys", "-t", session, "C-c");
        // the prompt comes back, the reply was cut, the session goes on
        await waitForScreen(/^>$/m);
        await expect.poll(() => upstream.last().abortedAt).toBeDefined();
        upstream.behaviour.chunkDelayMs = 0;
        tmux("send-keys", "-t", session, "still here", "Enter");
        await waitForScreen(/fake: still here/);
        tmux("send-keys", "-t", session, "C-c");
        const screen = await waitForScreen(/EXITED \d+/);
        recordOutput(["chat (interactive, Ctrl-C during a reply)"], screen, "");
        expect(screen).not.toContain("fake: a b c d e f g h i j");
        expect(screen).toMatch(/EXITED 0/);
      });
    } finally {
      upstream.behaviour.chunkDelayMs = 0;
    }
  });

  it("status and doctor on a terminal: one line per check, no clock at the right edge, no blank line before ✖", async () => {
    const env = `GATEWAY_CONFIG_DIR=${tempConfigDir()} GATEWAY_UPSTREAM=${upstream.url} GATEWAY_API_KEY=sk-wrong-key-for-doctor GATEWAY_PORT=1`;
    tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "40", `env ${env} ${process.execPath} ${BIN} doctor; echo EXITED $?; sleep 30`);
    try {
      const screen = await waitForScreen(/EXITED \d+/);
      recordOutput(["doctor (terminal)"], screen, "");
      const lines = screen.split("\n").filter((line) => line.trim());
      expect(screen).toMatch(/EXITED 1/);
      expect(screen).not.toMatch(/\d\d:\d\d:\d\d\s*$/m);
      expect(screen.trimEnd().split("\n").slice(0, lines.length - 1).every((line) => line.trim() !== "")).toBe(true);
      expect(lines[0]).toMatch(/^✔ Node\.js \d+/);
      expect(screen).toMatch(/^✖ Upstream refused the key \(HTTP 401\)\n {4}fix: Run `gateway login` with a valid key\.$/m);
      expect(screen).toMatch(/^✖ \d checks? failed\.\nℹ Apply the fixes above/m);
    } finally {
      spawnSync("tmux", ["kill-session", "-t", session]);
    }
  });
});
