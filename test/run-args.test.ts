import { describe, expect, it } from "vitest";
import { plainRun } from "../src/cli/commands/run.js";

describe("a plain `gateway run <tool>` (run without commander)", () => {
  it("is the tool and all that follows it, untouched, when no option of run's own comes first", () => {
    expect(plainRun(["run", "claude", "-p", "hi", "--port", "9"])).toEqual({ command: "claude", args: ["-p", "hi", "--port", "9"] });
    expect(plainRun(["run", "python", "--", "x.py"])).toEqual({ command: "python", args: ["--", "x.py"] });
    expect(plainRun(["run", "help"])).toEqual({ command: "help", args: [] });
  });

  it("is left to commander for an option of run's own, `--`, help, a missing or empty tool, or another command", () => {
    for (const args of [["run", "--offline", "codex"], ["run", "-p", "9000", "claude"], ["run", "--", "node"], ["run", "--help"], ["run"], ["run", ""], ["env"], ["--version"], []]) {
      expect(plainRun(args)).toBeUndefined();
    }
  });
});
