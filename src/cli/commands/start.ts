import { resolve } from "node:path";
import { Option, type Command } from "commander";
import ms from "ms";
import { CAPTURE_MODES, ECHO_UPSTREAM, otlpSettings, type GatewayConfig } from "../../config/index.js";
import { createLogFile, type LogFile } from "../../request-log/log-file.js";
import { fanOut, type RequestSink } from "../../request-log/record.js";
import { consolaSink } from "../../request-log/request-line.js";
import { spawnDetached } from "../../running/detach.js";
import { removeGatewayRecord, writeGatewayRecord } from "../../running/gateway-record.js";
import { createIdleMemory } from "../../server/idle-memory.js";
import { startGateway, type Gateway } from "../../server/start-gateway.js";
import { VERSION } from "../../version.js";
import { BIN_PATH } from "../bin-path.js";
import { loadReasoningSeal } from "../../local-key/reasoning-secret.js";
import { createContext, localKeyOf, portFlag, type CommandContext } from "../context.js";
import { baseUrlNotices } from "../base-url-notice.js";
import { explainListenError } from "../listen-hints.js";
import { chooseGateway, notYours } from "../running-gateway.js";
import { startupKeySources } from "../upstream-keys.js";
import { redact } from "../secrets.js";
import { log, stdoutLog } from "../terminal.js";

interface StartOptions {
  port?: string;
  host?: string;
  upstream?: string;
  messagesSegment?: string;
  geminiSegment?: string;
  cors: string[];
  capture?: string | true;
  quiet?: boolean;
  verbose?: boolean;
  requestLog: boolean;
  detach?: boolean;
}

/** One line per upstream: name, where it is, what it serves and which models go to it. */
function upstreamLines(config: GatewayConfig): string[] {
  return config.upstreams.map((upstream) => {
    const where = upstream.url === ECHO_UPSTREAM ? "echo" : new URL(upstream.url).origin;
    const models = upstream.models.length > 0 ? `, models ${upstream.models.join(" ")}` : upstream.name === config.defaultUpstream ? ", the default" : "";
    return `                   ${upstream.name}  ${where}  (${upstream.formats.join(", ")}${models})`;
  });
}

/** What capture keeps, in words, for the banner, `--detach` and `status`; undefined when it is off. */
export function captureLine(mode: string | undefined): string | undefined {
  if (mode === undefined || mode === "off") return undefined;
  return `${mode === "all" ? "every request's" : "failed requests'"} bodies kept in memory (the dashboard, gateway logs --show)`;
}

function banner(gateway: Gateway, config: GatewayConfig): string {
  const echo = gateway.upstream === ECHO_UPSTREAM && config.upstreams.length === 1;
  const capture = captureLine(config.capture);
  return [
    `gateway ${VERSION} listening on ${gateway.url}`,
    "",
    `  OpenAI style     ${gateway.url}/v1`,
    `  Anthropic style  ${gateway.url}${config.messagesSegment ? `   (also ${gateway.url}/${config.messagesSegment})` : ""}`,
    `  Gemini style     ${config.geminiSegment ? `${gateway.url}/${config.geminiSegment}` : gateway.url}`,
    `  Dashboard        ${gateway.url}/ui/   (gateway ui opens it with the key)`,
    ...(capture ? [`  Capture          ${capture}`] : []),
    ...(config.upstreams.length > 1
      ? ["  Upstreams", ...upstreamLines(config)]
      : [`  Upstream         ${echo ? "ECHO (offline, built in): replies repeat your last message" : gateway.upstream}`]),
    "",
    "  Point your tools here: run `gateway env` for the base URLs and the local key,",
    '  or `eval "$(gateway env)"` to set OPENAI_*, ANTHROPIC_* and GEMINI_* in this shell,',
    "  or launch a tool through it: gateway run claude",
    ...(echo
      ? [
          "",
          "  No real upstream is configured. Add a local server or a provider: gateway add http://127.0.0.1:11434 (or gateway add openai),",
          "  or connect your own gateway: gateway login --upstream https://<your-gateway>",
        ]
      : []),
  ].join("\n");
}

/** Graceful on the first signal, immediate on the second; the record goes either way. */
function handleSignals(gateway: Gateway, graceMs: number, cleanup: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(`${signal} again: exiting now, ${openRequests(gateway.inflight())} cut short.`);
      process.exit(130);
    }
    stopping = true;
    const open = gateway.inflight();
    log.info(
      open === 0
        ? "Shutting down: no request is open."
        : `Shutting down: ${openRequests(open)} open, let finish for up to ${ms(graceMs, { long: true })} (press Ctrl-C again to quit now).`,
    );
    gateway.close(graceMs).then(
      async () => {
        await cleanup();
        log.success("Gateway stopped.");
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

const openRequests = (n: number) => `${n} request${n === 1 ? "" : "s"}`;

/** The arguments a detached child gets: the same options, minus `--detach`. */
function childArgs(argv: readonly string[]): string[] {
  const start = argv.indexOf("start");
  return argv.slice(start + 1).filter((arg) => arg !== "--detach");
}

async function detach(options: StartOptions, ctx: CommandContext): Promise<void> {
  const { config } = ctx;
  const running = await chooseGateway(ctx, portFlag(options.port));
  if (running.owner === "other" && (options.port === undefined || running.via === "flag")) throw await notYours(ctx, running.port);
  if (running.health && (options.port === undefined || running.via === "flag")) {
    const pid = running.record?.pid ?? running.health.pid;
    log.info(`A gateway is already running on http://127.0.0.1:${running.port}${pid ? ` (pid ${pid})` : ""}.`);
    return;
  }
  const ready = await spawnDetached(BIN_PATH, childArgs(process.argv), config.stateDir, config.port);
  log.success(`Gateway running in the background on ${ready.url} (pid ${ready.pid}).`);
  log.log(`  Output:  ${ready.logFile}`);
  const capture = captureLine(config.capture);
  if (capture) log.log(`  Capture: ${capture}`);
  log.log("  Stop it: gateway stop");
}

export function registerStart(program: Command): void {
  program
    .command("start")
    .description("run the local gateway (in the foreground, or in the background with --detach)")
    .option("-p, --port <n>", "port to listen on (0 picks a free one)")
    .option("--host <addr>", "interface to bind (non-loopback turns off the Host guard)")
    .option("--upstream <url|echo>", "upstream base URL, or echo for the offline upstream")
    .option("--messages-segment <s>", "path segment of the messages family")
    .option("--gemini-segment <s>", "path segment of the Gemini family")
    .option("--cors <origin>", "allow a browser origin (repeatable)", (value: string, all: string[]) => [...all, value], [])
    .addOption(new Option("--capture [mode]", "keep request and reply bodies in memory for the dashboard (--capture alone: all)").choices(CAPTURE_MODES))
    .option("--quiet", "do not print one line per request")
    .option("--verbose", "also print each request's headers (keys and cookies redacted)")
    .option("--no-request-log", "do not write requests.jsonl (what `gateway logs` and `gateway stats` read)")
    .option("--detach", "run in the background; output goes to a log file in the state directory")
    .addHelpText("after", "\nExamples:\n  gateway start\n  gateway start --detach\n  gateway start --upstream echo --port 0 --verbose")
    .action(async (options: StartOptions) => {
      const ctx = createContext({
        port: options.port,
        host: options.host,
        upstream: options.upstream,
        messagesSegment: options.messagesSegment,
        geminiSegment: options.geminiSegment,
        cors: options.cors,
        capture: options.capture === true ? "all" : options.capture,
      });
      for (const notice of baseUrlNotices(ctx.config)) log.info(notice);
      // Read before detaching, so that a bad OTEL_* value is told here rather than in a detached gateway's log file.
      const otlp = otlpSettings(ctx.config);
      const keySourceFor = await startupKeySources(ctx);
      if (options.detach) return detach(options, ctx);
      const localKey = localKeyOf(ctx);
      const serverLog = stdoutLog();
      const logFile: LogFile | undefined = options.requestLog ? createLogFile({ dir: ctx.config.stateDir, onError: (message) => log.warn(message) }) : undefined;
      const sinks: RequestSink[] = [...(options.quiet ? [] : [consolaSink(serverLog, redact)]), ...(logFile ? [logFile.sink] : [])];
      const gateway = await startGateway({
        config: ctx.config,
        keySourceFor,
        localKey,
        seal: loadReasoningSeal(ctx.config.configDir),
        version: VERSION,
        onRequest: fanOut(sinks),
        recordHeaders: options.verbose === true && !options.quiet,
        onInternalError: (error) => log.error(error),
        onCatalogFailure: (name, failure, kept) => serverLog.warn(`The catalog of the team upstream ${name} could not be read (${failure}); ${kept ? "the one read before is in use" : "only its listed models are routed to it"}. gateway catalog --refresh reads it again.`),
        onUpgradeRefused: options.quiet ? undefined : (method, path, status) => serverLog.warn(`${method} ${path} WebSocket upgrade refused (${status}): the client should fall back to plain HTTP`),
        occupancy: createIdleMemory(),
        otlp,
        onTelemetryWarning: (line) => {
          serverLog.warn(line);
          // SPEC 12: the warning is seen in `gateway logs` too, as an event line among the requests (never counted as one).
          logFile?.event({ time: new Date().toISOString(), event: "telemetry-export-failed", level: "warn", message: line });
        },
      }).catch(async (error: unknown) => {
        throw await explainListenError(ctx, error);
      });
      writeGatewayRecord(ctx.config.stateDir, {
        pid: process.pid,
        host: ctx.config.host,
        port: gateway.port,
        upstream: gateway.upstream,
        version: VERSION,
        startedAt: new Date().toISOString(),
        configDir: resolve(ctx.config.configDir),
        logFile: process.env.GATEWAY_DETACHED_LOG,
        capture: ctx.config.capture,
      });
      const removeRecord = () => removeGatewayRecord(ctx.config.stateDir, gateway.port, process.pid);
      process.once("exit", removeRecord);
      handleSignals(gateway, ctx.config.shutdownGraceMs, async () => {
        removeRecord();
        await logFile?.close();
      });
      if (process.stdout.isTTY) serverLog.box(banner(gateway, ctx.config));
      else serverLog.log(banner(gateway, ctx.config));
      process.send?.({ ready: true, url: gateway.url, port: gateway.port, pid: process.pid });
    });
}
