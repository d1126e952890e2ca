import { spawn } from "node:child_process";
import { constants } from "node:os";
import type { Command } from "commander";
import { CommandNotFoundError, GatewayProcessError } from "../../errors/index.js";
import { spawnDetached } from "../../running/detach.js";
import { findGateway } from "../../running/find-gateway.js";
import { KNOWN_TOOLS, launchFor } from "../../running/tool-profiles.js";
import { writePrivateFile } from "../../files/private-files.js";
import { BIN_PATH } from "../bin-path.js";
import { createContext, localKeyOf, portFlag, resolveKeySource, type CommandContext } from "../context.js";
import { log } from "../terminal.js";
import { toolEnv } from "./env.js";

/** The port of the running gateway, started detached first when none runs (unless `--no-start`). */
async function gatewayPort(ctx: CommandContext, flag: number | undefined, start: boolean): Promise<number> {
  const running = await findGateway(ctx.config, flag);
  if (running.health) return running.port;
  if (!start) {
    throw new GatewayProcessError(`No gateway is running on port ${running.port}.`, { hint: "Start one with `gateway start --detach`, or drop --no-start." });
  }
  await resolveKeySource(ctx);
  const port = flag ?? ctx.config.port;
  const ready = await spawnDetached(BIN_PATH, ["--port", String(port)], ctx.config.stateDir, port);
  log.info(`Started a gateway in the background on ${ready.url} (pid ${ready.pid}); \`gateway stop\` ends it.`);
  return ready.port;
}

/** Runs the command with the terminal inherited; resolves with its exit code (128+n for signal n). */
function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") reject(new CommandNotFoundError(`Command not found: ${command}`, { hint: "Check its name, or install it first." }));
      else reject(new GatewayProcessError(`Cannot run ${command}: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run a tool pointed at the gateway (starting one in the background if none runs)")
    .argument("<command>", `the tool to run (${KNOWN_TOOLS.join(", ")} get what they need to start without questions)`)
    .argument("[args...]", "its arguments, passed untouched")
    .option("-p, --port <n>", "the gateway on this port")
    .option("--no-start", "fail instead of starting a gateway when none runs")
    .passThroughOptions()
    .addHelpText("after", '\nExamples:\n  gateway run claude\n  gateway run codex exec "fix the failing test"\n  gateway run gemini -p "explain this repo"\n  gateway run -- python my_script.py')
    .action(async (command: string, args: string[], options: { port?: string; start: boolean }) => {
      const ctx = createContext();
      const port = await gatewayPort(ctx, portFlag(options.port), options.start);
      const env = toolEnv(ctx, port);
      const launch = launchFor(command, { env, openaiBaseUrl: env.OPENAI_BASE_URL!, localKey: localKeyOf(ctx), stateDir: ctx.config.stateDir });
      for (const [path, content] of Object.entries(launch.files ?? {})) writePrivateFile(path, content);
      const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, ...launch.env };
      for (const [name, value] of Object.entries(launch.env)) if (value === undefined) delete childEnv[name];
      process.exitCode = await runCommand(command, [...launch.leadingArgs, ...args], childEnv);
    });
}
