// Issue 52's goals ("Start only what a command needs"), each as a figure of the one-off scenario (`coldStart`), with
// its target and whether it is met.
import { f, signed } from "./format.mjs";

/** Rows of `[goal, measured, target, met]`. */
export function oneOffRows(c) {
  const rows = [
    ["`gateway chat -m echo-1 hi` / `node -e 0`, no gateway running", `${f(c.chatAlone.ratio, 2)}x`, "<= 2.5x", c.chatAlone.ratio <= 2.5],
    ["the same through a running gateway of the same config", `${f(c.chatRunning.ratio, 2)}x`, "<= 2x", c.chatRunning.ratio <= 2],
    ["`gateway start` to its first /health / a bare node:http server", `${f(c.startToHealth.ratio, 2)}x`, "<= 1.5x", c.startToHealth.ratio <= 1.5],
    ["cold `gateway env` / `status` over `node -e 0`", `+${f(c.env - c.nodeFloor)} / +${f(c.status - c.nodeFloor)} ms`, "<= +70 ms each", c.env - c.nodeFloor <= 70 && c.status - c.nodeFloor <= 70],
    ["`gateway --version` / `node -e 0`", `${f(c.version / c.nodeFloor, 2)}x`, "<= 1.3x", c.version / c.nodeFloor <= 1.3],
  ];
  // `gateway run claude` is timed by bench/one-off.mjs alone (it sets `toolLaunch`, undefined without Claude Code).
  if (!("toolLaunch" in c)) return rows;
  const t = c.toolLaunch;
  // The floor in the same run: no Node launcher adds less than the least one (bench/least-launcher.mjs).
  if (t) rows.push(["`gateway run claude -p hi` over Claude Code with its environment set by hand", `${signed(t.addedMs)} ms (the least Node launcher: ${signed(t.floor.addedMs)} ms)`, "<= +50 ms", t.addedMs <= 50]);
  else rows.push(["`gateway run claude -p hi` over Claude Code with its environment set by hand", "not measured (the pinned Claude Code is not installed)", "<= +50 ms", false]);
  return rows;
}

/** The goals table of issue 52. */
export function oneOffGoalsTable(c) {
  return [
    "| goal (issue 52) | measured in this run | target | met |",
    "|---|---|---|---|",
    ...oneOffRows(c).map(([goal, measured, target, met]) => `| ${goal} | ${measured} | ${target} | ${met ? "met" : "**not met**"} |`),
  ];
}
