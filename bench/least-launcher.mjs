// node bench/least-launcher.mjs <command> [args...]: the least a Node launcher of a tool can do, the floor under
// `gateway run`'s own cost (bench/tool-launch.mjs): start Node, spawn the command with this process's environment and
// the terminal inherited, and exit with its code.
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
spawn(command, args, { stdio: "inherit" }).on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 128 : 1);
});
