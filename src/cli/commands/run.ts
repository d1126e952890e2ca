import { spawn } from "node:child_process";
import { constants } from "node:os";
import { isatty } from "node:tty";
import type { Command } from "commander";
import { CommandNotFoundError, GatewayProcessError } from "../../errors/index.js";
import { ensureGateway } from "../ensure-gateway.js";
import { claudeOnAnthropicOnly } from "../../routing/model-reach.js";
import { KNOWN_TOOLS, launchFor } from "../../running/tool-profiles.js";
import { findBypasses, hasStatusLine } from "../../running/tool-settings.js";
import { BIN_PATH } from "../bin-path.js";
import { writePrivateFile } from "../../files/private-files.js";
import { createContext, localKeyOf, portFlag } from "../context.js";
import { keptTeamIds } from "../kept-team-ids.js";
import { log } from "../terminal.js";
import { quote, toolEnv } from "../tool-env.js";

/**
 * Runs the command with the terminal inherited; resolves with its exit code (128+n for signal n). Signals sent to
 * this process are passed on, but for Ctrl-C in a terminal: the terminal already sent that SIGINT to the whole
 * foreground process group, the tool included, and passing it on made one press count as two for a tool that
 * handles SIGINT (where a second one often means "quit now"). Full-screen tools such as Claude Code read Ctrl-C
 * as a key and get no signal at all. This process stays, ignoring it, to hand back the tool's exit code.
 */
function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env });
    const fromTerminal = [0, 1, 2].some((fd) => isatty(fd));
    const forward = (signal: NodeJS.Signals) => {
      if (signal !== "SIGINT" || !fromTerminal) child.kill(signal);
    };
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

/** `gateway statusline` as a shell runs it: this Node and this install, so it works whatever PATH the tool has. */
function statusLineCommand(port: number | undefined): string {
  return [quote(process.execPath), quote(BIN_PATH), "statusline", ...(port === undefined ? [] : ["-p", String(port)])].join(" ");
}

/** `gateway run`'s options, as commander gives them to the action. */
export interface RunOptions {
  port?: string;
  start: boolean;
  offline?: boolean;
  ownLogin?: boolean;
}

/**
 * `gateway run <command> [args...]` with no option of its own before the command (every launch from a shell alias,
 * every `gateway run claude`): the command and its arguments, exactly what commander would give the action with
 * `passThroughOptions` (everything after the command is the tool's). Undefined for anything else, which commander
 * parses: an option, `--`, help. Found without loading commander, about 10 ms of every launch on the 2-core VM
 * (issue 52, `gateway run`'s own cost; docs/performance.md).
 */
export function plainRun(args: readonly string[]): { command: string; args: string[] } | undefined {
  const [name, command, ...rest] = args;
  return name === "run" && command !== undefined && command !== "" && !command.startsWith("-") ? { command, args: rest } : undefined;
}

/** Runs `command` pointed at the gateway (starting one unless `start` is false), the tool's exit code as this process's. */
export async function runTool(command: string, args: string[], options: RunOptions): Promise<void> {
  const ctx = createContext();
  const ownLogin = options.ownLogin === true;
  if (ownLogin && !ctx.config.upstreams.some((upstream) => upstream.key.kind === "client")) {
    log.warn(`No upstream has "key": "client", so the gateway answers the tool's own credential with 401. Give the upstream it should reach "key": "client" in ${ctx.config.configFile} ("Claude Code with your subscription" in docs/configuration.md shows how).`);
  }
  const flag = portFlag(options.port);
  const port = await ensureGateway(ctx, flag, options.start);
  const env = toolEnv(ctx, port, !ownLogin);
  const address = { env, openaiBaseUrl: env.OPENAI_BASE_URL!, localKey: localKeyOf(ctx), stateDir: ctx.config.stateDir, claudeOnAnthropic: claudeOnAnthropicOnly(ctx.config, keptTeamIds(ctx)) };
  const place = { env: { ...process.env, ...env }, cwd: process.cwd(), platform: process.platform, ownLogin };
  // Claude Code's status line is the gateway's, unless the user's settings (or the command line) give one.
  const statusLine = hasStatusLine(place, args) ? undefined : statusLineCommand(flag);
  const launch = launchFor(command, address, { offline: options.offline === true, ownLogin, statusLine });
  for (const [path, content] of Object.entries(launch.files ?? {})) writePrivateFile(path, content);
  const childEnv: NodeJS.ProcessEnv = { ...launch.envDefaults, ...process.env, ...env, ...launch.env };
  for (const [name, value] of Object.entries(launch.env)) if (value === undefined) delete childEnv[name];
  for (const bypass of await findBypasses(command, { ...place, env: childEnv })) {
    log.warn(`${bypass.file} sets ${bypass.setting}: ${bypass.effect}. ${bypass.fix}`);
  }
  const code = await runCommand(command, [...launch.leadingArgs, ...args], childEnv);
  const hint = launch.exitHints?.[code];
  if (hint) log.info(hint);
  process.exitCode = code;
}

export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run a tool pointed at the gateway (starting one in the background if none runs)")
    .argument("<command>", `the tool to run (${KNOWN_TOOLS.join(", ")} get what they need to start without questions)`)
    .argument("[args...]", "its arguments, passed untouched")
    .option("-p, --port <n>", "the gateway on this port")
    .option("--no-start", "fail instead of starting a gateway when none runs")
    .option("--offline", "turn off the tool's own update checks, telemetry and usage statistics (the gateway is its only destination)")
    .option("--own-login", 'keep the tool\'s own login (a Claude subscription, your own key): only its base URL changes; upstreams with "key": "client" get its credential')
    .passThroughOptions()
    .addHelpText(
      "after",
      '\nExamples:\n  gateway run claude\n  gateway run --own-login claude\n  gateway run --offline codex exec "fix the failing test"\n  gateway run gemini --skip-trust -p "explain this repo"\n  gateway run -- python my_script.py',
    )
    .action(runTool);
}
