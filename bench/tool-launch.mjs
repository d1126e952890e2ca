// Issue 52's last goal: what `gateway run claude -p hi` adds over running Claude Code with its environment set by
// hand. "By hand" is exactly what `gateway run` gives the tool: a stand-in `claude` first on PATH records the
// environment and arguments `gateway run` hands it once, and the real (pinned) Claude Code is then run with those,
// paired run for run with `gateway run claude -p hi` against the same running gateway (the echo upstream). A third
// command in the same turns is the floor under any Node launcher: `least-launcher.mjs` spawning that Claude Code with
// that environment and those arguments, and nothing else (`node -e 0` alone is 70-90 ms on the 2-core VM).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { interleavedRuns, pairedWith } from "./cold-start.mjs";

const BIN = fileURLToPath(new URL("../bin/gateway.js", import.meta.url));
const LEAST = fileURLToPath(new URL("least-launcher.mjs", import.meta.url));
/** The pinned tools the suite runs (scripts/test-tools.mjs installs them). */
const TOOLS = process.env.GATEWAY_TEST_TOOLS ?? join(homedir(), ".cache", "gateway-test-tools");
const CLAUDE = join(TOOLS, "node_modules", ".bin", "claude");

/** Claude Code's own calls home, off (as the suite's tool tests run it): only the gateway is measured. */
const QUIET = { DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" };

/** The environment and arguments `gateway run claude ...args` hands the tool, read by a stand-in `claude`. */
function launchSeen(env, args) {
  const dir = mkdtempSync(join(tmpdir(), "gateway-bench-launch-"));
  try {
    const seen = join(dir, "seen.json");
    writeFileSync(join(dir, "record.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ env: process.env, args: process.argv.slice(2) }));\n`);
    writeFileSync(join(dir, "claude"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, "record.cjs"))} "$@"\n`);
    chmodSync(join(dir, "claude"), 0o755);
    const r = spawnSync(process.execPath, [BIN, "run", "claude", ...args], { env: { ...env, PATH: `${dir}:${env.PATH}` }, stdio: ["ignore", "pipe", "pipe"] });
    if (r.status !== 0) throw new Error(`gateway run with a stand-in claude exited with ${r.status}: ${r.stderr}`);
    const { env: toolEnv, args: toolArgs } = JSON.parse(readFileSync(seen, "utf8"));
    return { env: { ...toolEnv, PATH: env.PATH }, args: toolArgs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Paired medians (ms) of `gateway run claude -p hi` and of Claude Code run with what it was given (`pairedWith`); as
 * `floor` the least Node launcher over Claude Code by hand, and as `overFloor` `gateway run` over that launcher;
 * undefined when the pinned Claude Code is not installed. `env` points at a running gateway whose default upstream is
 * echo.
 */
export function toolLaunch(env, runs) {
  if (!existsSync(CLAUDE)) return undefined;
  const home = mkdtempSync(join(homedir(), ".cache", "gateway-bench-home-"));
  try {
    const base = { ...env, ...QUIET, HOME: home, PATH: `${join(TOOLS, "node_modules", ".bin")}:${env.PATH}` };
    const args = ["-p", "hi", "--model", "claude-sonnet-4-5"];
    const byHand = launchSeen(base, args);
    const [tool, least, gateway] = interleavedRuns(
      [
        [CLAUDE, byHand.args, byHand.env],
        [process.execPath, [LEAST, "claude", ...byHand.args], byHand.env],
        [process.execPath, [BIN, "run", "claude", ...args], base],
      ],
      runs,
    );
    return { ...pairedWith(tool, gateway), floor: pairedWith(tool, least), overFloor: pairedWith(least, gateway) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
