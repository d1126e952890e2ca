import type { Command } from "commander";
import { VERSION } from "../version.js";
import { log } from "./terminal.js";

type Register = (program: Command) => void;

/**
 * Every command, in the order `--help` lists them. A command's module (and what it imports: the server, the
 * keychain, the HTTP client) loads only when that command runs: `eval "$(gateway env)"` in a shell profile and
 * `gateway run` pay for nothing else.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  start: async () => (await import("./commands/start.js")).registerStart,
  stop: async () => (await import("./commands/stop.js")).registerStop,
  run: async () => (await import("./commands/run.js")).registerRun,
  login: async () => (await import("./commands/login.js")).registerLogin,
  logout: async () => (await import("./commands/logout.js")).registerLogout,
  add: async () => (await import("./commands/add.js")).registerAdd,
  remove: async () => (await import("./commands/remove.js")).registerRemove,
  env: async () => (await import("./commands/env.js")).registerEnv,
  status: async () => (await import("./commands/status.js")).registerStatus,
  doctor: async () => (await import("./commands/doctor.js")).registerDoctor,
  chat: async () => (await import("./commands/chat.js")).registerChat,
  models: async () => (await import("./commands/models.js")).registerModels,
  catalog: async () => (await import("./commands/catalog.js")).registerCatalog,
  routes: async () => (await import("./commands/routes.js")).registerRoutes,
  logs: async () => (await import("./commands/logs.js")).registerLogs,
  stats: async () => (await import("./commands/stats.js")).registerStats,
  statusline: async () => (await import("./commands/statusline.js")).registerStatusline,
  ui: async () => (await import("./commands/ui.js")).registerUi,
  service: async () => (await import("./commands/service.js")).registerService,
};

/**
 * The commands `args` needs: the one it names; none for a bare `--version`; all of them otherwise, because
 * help lists them and an unknown name is answered with the closest one. No top-level option takes a value, so
 * the first word that is not an option is the command.
 */
function commandsFor(args: readonly string[]): string[] {
  const named = args.find((arg) => !arg.startsWith("-"));
  if (named !== undefined && Object.hasOwn(COMMANDS, named)) return [named];
  if (named === undefined && args.length > 0 && args.every((arg) => arg === "-v" || arg === "--version")) return [];
  return Object.keys(COMMANDS);
}

/** The commander program with the commands `argv` needs; exits are decided by `run`. */
export async function createProgram(argv: readonly string[]): Promise<Command> {
  // commander loads beside the command's module, not before it: a plain `gateway run` loads neither (`ranPlainRun`).
  const [{ Command }, registers] = await Promise.all([import("commander"), Promise.all(commandsFor(argv.slice(2)).map((name) => COMMANDS[name]!()))]);
  const program = new Command("gateway")
    .description("A local LLM API gateway for OpenAI-, Anthropic- and Gemini-style tools.")
    .version(VERSION, "-v, --version")
    // commander's own "error: ..." lines would be a second error style: `renderCliError` words them like the rest.
    .configureOutput({ outputError: () => {} })
    .enablePositionalOptions()
    .exitOverride();
  for (const register of registers) register(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Exits quietly when stdout is closed early (`gateway chat ... | head -1`). */
function exitOnBrokenPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

/**
 * Runs a plain `gateway run <tool> ...` (`plainRun`) without commander, and says whether it did: every launch of a
 * tool pays this process's start (issue 52, `gateway run`'s own cost).
 */
async function ranPlainRun(argv: readonly string[]): Promise<boolean> {
  if (argv[2] !== "run") return false;
  const { plainRun, runTool } = await import("./commands/run.js");
  const plain = plainRun(argv.slice(2));
  if (plain) await runTool(plain.command, plain.args, { start: true });
  return plain !== undefined;
}

/** Runs the CLI; every failure is rendered by `renderCliError` into one line, a hint and the exit code. */
export async function run(argv: readonly string[]): Promise<void> {
  exitOnBrokenPipe();
  try {
    if (!(await ranPlainRun(argv))) await (await createProgram(argv)).parseAsync(argv as string[]);
  } catch (error) {
    // Loaded only for a failure: it knows commander's errors, and commander is no part of a plain `gateway run`.
    const { renderCliError } = await import("./render-error.js");
    const named = commandsFor(argv.slice(2));
    const rendered = renderCliError(error, named.length === 1 ? named[0] : undefined);
    if (rendered.message) log.error(rendered.message);
    if (rendered.hint) log.info(rendered.hint);
    process.exit(rendered.exitCode);
  }
}
