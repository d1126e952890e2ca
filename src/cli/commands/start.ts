import type { Command } from "commander";
import { createConsola } from "consola";
import { ECHO_UPSTREAM, readEnvSecrets } from "../../config/index.js";
import { loadLocalKey } from "../../local-key/local-key.js";
import { createLogFile, type LogFile } from "../../request-log/log-file.js";
import { fanOut, type RequestSink } from "../../request-log/record.js";
import { consolaSink } from "../../request-log/request-line.js";
import { startGateway, type Gateway } from "../../server/start-gateway.js";
import { VERSION } from "../../version.js";
import { createContext, resolveKeySource } from "../context.js";
import { log } from "../terminal.js";

/**
 * The server's own output (banner, one line per request) goes to stdout, like any foreground server; failed
 * requests too, so `gateway start > requests.log` keeps every line in order.
 */
const serverLog = createConsola({ stdout: process.stdout, stderr: process.stdout });

interface StartOptions {
  port?: string;
  host?: string;
  upstream?: string;
  messagesSegment?: string;
  cors: string[];
  quiet?: boolean;
  verbose?: boolean;
  requestLog: boolean;
}

function banner(gateway: Gateway, segment: string): string {
  const echo = gateway.upstream === ECHO_UPSTREAM;
  return [
    `gateway ${VERSION} listening on ${gateway.url}`,
    "",
    `  OpenAI style     ${gateway.url}/v1`,
    `  Anthropic style  ${gateway.url}   (also ${gateway.url}/${segment})`,
    `  Upstream         ${echo ? "ECHO (offline, built in): replies repeat your last message" : gateway.upstream}`,
    "",
    "  Point your tools here: run `gateway env` for the base URLs and the local key,",
    '  or `eval "$(gateway env)"` to set OPENAI_* and ANTHROPIC_* in this shell.',
    ...(echo ? ["", "  No real upstream is configured. Connect one with: gateway login --upstream https://<your-gateway>"] : []),
  ].join("\n");
}

/** Graceful on the first signal, immediate on the second. */
function handleSignals(gateway: Gateway, logFile: LogFile | undefined): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(`${signal} again: exiting now.`);
      process.exit(130);
    }
    stopping = true;
    log.info("Shutting down: letting open replies finish for up to 10 s (press Ctrl-C again to quit now).");
    gateway.close(10_000).then(
      async () => {
        await logFile?.close();
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

export function registerStart(program: Command): void {
  program
    .command("start")
    .description("run the local gateway in the foreground")
    .option("-p, --port <n>", "port to listen on (0 picks a free one)")
    .option("--host <addr>", "interface to bind (non-loopback turns off the Host guard)")
    .option("--upstream <url|echo>", "upstream base URL, or echo for the offline upstream")
    .option("--messages-segment <s>", "path segment of the messages family")
    .option("--cors <origin>", "allow a browser origin (repeatable)", (value: string, all: string[]) => [...all, value], [])
    .option("--quiet", "do not print one line per request")
    .option("--verbose", "also print each request's headers (keys and cookies redacted)")
    .option("--no-request-log", "do not write requests.jsonl (what `gateway logs` and `gateway stats` read)")
    .addHelpText("after", "\nExample:\n  gateway start --port 8484\n  gateway start --upstream echo --port 0 --verbose")
    .action(async (options: StartOptions) => {
      const ctx = createContext({
        port: options.port,
        host: options.host,
        upstream: options.upstream,
        messagesSegment: options.messagesSegment,
        cors: options.cors,
      });
      const keySource = await resolveKeySource(ctx);
      const localKey = loadLocalKey(ctx.config.configDir, readEnvSecrets(ctx.env).localKey);
      const logFile = options.requestLog ? createLogFile({ dir: ctx.config.stateDir, onError: (message) => log.warn(message) }) : undefined;
      const sinks: RequestSink[] = [...(options.quiet ? [] : [consolaSink(serverLog)]), ...(logFile ? [logFile.sink] : [])];
      const gateway = await startGateway({
        config: ctx.config,
        keySource,
        localKey,
        version: VERSION,
        onRequest: fanOut(sinks),
        recordHeaders: options.verbose === true && !options.quiet,
      });
      handleSignals(gateway, logFile);
      if (process.stdout.isTTY) serverLog.box(banner(gateway, ctx.config.messagesSegment));
      else serverLog.log(banner(gateway, ctx.config.messagesSegment));
    });
}
