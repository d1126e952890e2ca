import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, recordOutput } from "./helpers/cli.js";
import { FAKE_UPSTREAM_KEY, startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { hasTmux, openTerminal, type Terminal } from "./helpers/terminal.js";

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

/** `gateway chat -m gpt-fake` in a fresh terminal against the fake upstream; `run` drives it. */
async function inTerminal(run: (terminal: Terminal) => Promise<void>) {
  const env = `GATEWAY_CONFIG_DIR=${tempConfigDir()} GATEWAY_UPSTREAM=${upstream.url} GATEWAY_API_KEY=${FAKE_UPSTREAM_KEY} NO_COLOR=1`;
  const terminal = openTerminal("gateway-chat", `env ${env} ${process.execPath} ${BIN} chat -m gpt-fake`);
  try {
    // capture-pane trims the space after the "> " prompt
    await terminal.waitFor(/^>$/m);
    await run(terminal);
  } finally {
    terminal.close();
  }
}

describe.skipIf(!hasTmux)("interactive gateway chat in a terminal", () => {
  it("keeps the conversation across two turns and exits on Ctrl-D", async () => {
    await inTerminal(async (terminal) => {
      terminal.keys("first question", "Enter");
      await terminal.waitFor(/fake: first question/);
      terminal.keys("second one", "Enter");
      await terminal.waitFor(/fake: second one/);
      terminal.keys("C-d");
      const screen = await terminal.waitFor(/EXITED \d+/);
      recordOutput(["chat (interactive)"], screen, "");
      expect(screen).toContain("fake: first question");
      expect(screen).toContain("fake: second one");
      expect(screen).toMatch(/EXITED 0/);
      const second = JSON.parse(upstream.last().raw.toString()) as { messages: { role: string; content: string }[] };
      expect(second.messages).toEqual([
        { role: "user", content: "first question" },
        { role: "assistant", content: "fake: first question" },
        { role: "user", content: "second one" },
      ]);
    });
  });

  it("Ctrl-C at an empty prompt ends the session with exit 0", async () => {
    await inTerminal(async (terminal) => {
      terminal.keys("C-c");
      const screen = await terminal.waitFor(/EXITED \d+/);
      recordOutput(["chat (interactive, Ctrl-C at the prompt)"], screen, "");
      expect(screen).toMatch(/EXITED 0/);
    });
  });

  it("Ctrl-C during a reply stops only the reply; Ctrl-C at the next prompt exits 0", async () => {
    upstream.behaviour.chunkDelayMs = 400;
    try {
      await inTerminal(async (terminal) => {
        terminal.keys("a b c d e f g h i j", "Enter");
        await terminal.waitFor(/fake: /);
        terminal.keys("C-c");
        // the prompt comes back, the reply was cut, the session goes on
        await terminal.waitFor(/^>$/m);
        await expect.poll(() => upstream.last().abortedAt).toBeDefined();
        upstream.behaviour.chunkDelayMs = 0;
        terminal.keys("still here", "Enter");
        await terminal.waitFor(/fake: still here/);
        terminal.keys("C-c");
        const screen = await terminal.waitFor(/EXITED \d+/);
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
    const terminal = openTerminal("gateway-doctor", `env ${env} ${process.execPath} ${BIN} doctor`, { columns: 150, rows: 40 });
    try {
      const screen = await terminal.waitFor(/EXITED \d+/);
      recordOutput(["doctor (terminal)"], screen, "");
      const lines = screen.split("\n").filter((line) => line.trim());
      expect(screen).toMatch(/EXITED 1/);
      expect(screen).not.toMatch(/\d\d:\d\d:\d\d\s*$/m);
      expect(screen.trimEnd().split("\n").slice(0, lines.length - 1).every((line) => line.trim() !== "")).toBe(true);
      expect(lines[0]).toMatch(/^✔ Node\.js \d+/);
      expect(screen).toMatch(/^✖ Upstream refused the key \(HTTP 401\)\n {4}fix: Run `gateway login` with a valid key\.$/m);
      expect(screen).toMatch(/^✖ \d checks? failed\.\nℹ Apply the fixes above/m);
    } finally {
      terminal.close();
    }
  });
});
