import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createIdleMemory } from "../src/server/idle-memory.js";

describe("idle memory", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function recorded(options: { nodeArgs?: string[] } = {}) {
    const flags: string[] = [];
    const occupancy = createIdleMemory({ quietMs: 500, setFlags: (flag) => flags.push(flag), nodeArgs: options.nodeArgs ?? [] });
    return { flags, occupancy };
  }

  it("prefers memory once no request has been open for the quiet time, and speed again when one opens", () => {
    vi.useFakeTimers();
    const { flags, occupancy } = recorded();
    occupancy.busy();
    occupancy.quiet();
    vi.advanceTimersByTime(499);
    expect(flags).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(flags).toEqual(["--optimize-for-size"]);
    vi.advanceTimersByTime(10_000);
    occupancy.busy();
    occupancy.busy();
    expect(flags).toEqual(["--optimize-for-size", "--no-optimize-for-size"]);
  });

  it("counts the quiet time from the last request, and not at all while one is open", () => {
    vi.useFakeTimers();
    const { flags, occupancy } = recorded();
    occupancy.busy();
    occupancy.quiet();
    vi.advanceTimersByTime(300);
    occupancy.busy();
    vi.advanceTimersByTime(1_000);
    expect(flags).toEqual([]);
    occupancy.quiet();
    vi.advanceTimersByTime(499);
    expect(flags).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(flags).toEqual(["--optimize-for-size"]);
  });

  it("leaves a user's own --optimize-for-size alone", () => {
    vi.useFakeTimers();
    const { flags, occupancy } = recorded({ nodeArgs: ["--optimize-for-size"] });
    occupancy.busy();
    occupancy.quiet();
    vi.advanceTimersByTime(5_000);
    occupancy.busy();
    expect(flags).toEqual([]);
  });

  // The flag only helps if this Node's V8 still reads it after start-up: its memory reducer says which mode it sees.
  it.each([
    ["quiet", "background"],
    ["busy", "foreground"],
  ])("V8's memory reducer sees the preference (%s: %s)", async (state, mode) => {
    const module = fileURLToPath(new URL("../dist/server/idle-memory.js", import.meta.url));
    const script = [
      `const { createIdleMemory } = await import(${JSON.stringify(module)});`,
      "const occupancy = createIdleMemory({ quietMs: 10 });",
      "occupancy.busy();",
      `if (${JSON.stringify(state)} === "quiet") occupancy.quiet();`,
      // Once the preference is set, grow the old generation: its collection starts the reducer's timer.
      "setTimeout(() => { let junk = []; for (let i = 0; i < 400000; i++) junk.push({ i, s: 'x' + i }); junk = null; }, 50);",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const child = spawn(process.execPath, ["--trace-gc-verbose", "--gc-memory-reducer-start-delay-ms=100", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    const line = new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Memory reducer: \w+ alloc, (\w+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code} before the memory reducer ran:\n${output.slice(-2000)}`)));
    });
    try {
      expect(await line).toBe(mode);
    } finally {
      child.kill();
      await once(child, "exit");
    }
  });
});
