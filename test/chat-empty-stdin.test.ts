import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cliEnv, recordOutput, runCli } from "./helpers/cli.js";
import { tempConfigDir } from "./helpers/gateway.js";
import { envPrefix, hasTmux, openTerminal } from "./helpers/terminal.js";

/**
 * Issue 37, item 16: `git diff | gateway chat -s "Review this"` on a clean tree pipes nothing in. The prompt was to
 * come from standard input, and it was empty: that is what `chat` says, not that no prompt was given.
 */

const EMPTY = "✖ Standard input was empty: nothing was piped in, and no prompt was given.\nℹ Check the command before the | (it printed nothing), or pass the prompt: gateway chat \"your question\".\n";

describe("gateway chat with empty standard input (item 16)", () => {
  it("says standard input was empty (exit 2), for nothing and for only blank lines piped in", async () => {
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir() });
    for (const input of ["", " \n\n"]) {
      const result = await runCli(["chat", "-m", "echo-1", "-s", "Review this"], env, input);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(EMPTY);
    }
    // a prompt of its own still goes, with nothing piped in
    expect((await runCli(["chat", "-m", "echo-1", "hello"], env, "")).stdout).toBe("echo: hello\n");
  });

  it.skipIf(!hasTmux)("git diff of a clean tree piped into it, in a terminal", async () => {
    const repo = mkdtempSync(join(tmpdir(), "gateway-clean-tree-"));
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(join(repo, "a.txt"), "committed\n");
    execFileSync("git", ["-C", repo, "add", "a.txt"]);
    execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one"]);
    const env = cliEnv({ GATEWAY_CONFIG_DIR: tempConfigDir({ defaultModel: "echo-1" }), PATH: `${process.env.PATH}` });
    const terminal = openTerminal("gateway-chat-empty", `cd ${repo} && git diff | ${envPrefix(env)} ${process.execPath} ${BIN} chat -s "Review this"`);
    try {
      const screen = await terminal.waitFor(/EXITED \d+/);
      recordOutput(["git diff | chat (terminal)"], screen, "");
      expect(screen).toContain("✖ Standard input was empty: nothing was piped in, and no prompt was given.");
      expect(screen).toContain("ℹ Check the command before the | (it printed nothing), or pass the prompt: gateway chat \"your question\".");
      expect(screen).not.toContain("No prompt given");
      expect(screen).toMatch(/EXITED 2/);
    } finally {
      terminal.close();
    }
  });
});
