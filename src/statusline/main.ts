import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { resolveConfigDir } from "../config/config-dir.js";
import { DEFAULTS } from "../config/defaults.js";
import { resolveStateDir } from "../config/state-dir.js";
import type { StatusLineAnswer } from "../dashboard/dashboard-routes.js";
import { peekLocalKey } from "../local-key/local-key.js";
import { listGatewayRecords } from "../running/gateway-record.js";
import { getLocalJson } from "../running/probe-health.js";
import { isAlive } from "../running/stop-gateway.js";
import { statusLine, type GatewayAnswer, type StatusLineInput } from "./status-line.js";

/** Longest a status bar waits for stdin or for the gateway: it asks again at its next refresh. */
const WAIT_MS = 1_000;

/** Claude Code's JSON on stdin; nothing when stdin is a terminal (run by hand) or says nothing readable in time. */
async function readInput(): Promise<StatusLineInput> {
  if (process.stdin.isTTY) return {};
  const chunks: Buffer[] = [];
  const ended = new Promise<void>((done) => {
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.once("end", done);
    process.stdin.once("error", done);
    process.stdin.once("close", done);
  });
  const timer = setTimeout(() => process.stdin.destroy(), WAIT_MS);
  await ended;
  clearTimeout(timer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof value === "object" && value !== null ? (value as StatusLineInput) : {};
  } catch {
    return {};
  }
}

/** The configured port: `GATEWAY_PORT`, else config.json's `port` (read, not validated: a bad file is `gateway status`'s to report), else 8484. */
function configuredPort(env: NodeJS.ProcessEnv, configDir: string): number {
  const fromEnv = Number(env.GATEWAY_PORT);
  if (env.GATEWAY_PORT && Number.isInteger(fromEnv)) return fromEnv;
  try {
    const port = (JSON.parse(readFileSync(join(configDir, "config.json"), "utf8")) as { port?: unknown }).port;
    if (typeof port === "number" && Number.isInteger(port) && port > 0) return port;
  } catch {
    // No file, or one `gateway status` will explain.
  }
  return DEFAULTS.port;
}

/**
 * The ports to ask, in the order other commands choose a gateway (SPEC 6): `-p` alone; else this configuration's
 * recorded gateways whose process lives, newest first, then the configured port.
 */
function portsToAsk(env: NodeJS.ProcessEnv, flag: number | undefined): number[] {
  if (flag !== undefined) return [flag];
  const configDir = resolveConfigDir(env);
  const own = resolve(configDir);
  const recorded = listGatewayRecords(resolveStateDir(env))
    .filter((record) => (record.configDir === undefined || record.configDir === own) && isAlive(record.pid))
    .map((record) => record.port);
  return [...new Set([...recorded, configuredPort(env, configDir)])];
}

/** The first of `ports` whose gateway answers the status line's question with this configuration's local key. */
async function ask(ports: readonly number[], localKey: string, session: string | undefined): Promise<GatewayAnswer> {
  const path = `/ui/api/statusline${session ? `?session=${encodeURIComponent(session)}` : ""}`;
  for (const port of ports) {
    const answer = (await getLocalJson(port, path, { authorization: `Bearer ${localKey}` }, WAIT_MS)) as StatusLineAnswer | undefined;
    if (answer && typeof answer.today === "object") return { port, answer };
  }
  return undefined;
}

/**
 * `gateway statusline [-p <n>]` (SPEC 11, Status line): reads Claude Code's statusLine JSON on stdin, asks the running
 * gateway (an endpoint of its own behind the local key, read from its file and sent in a header) about today's spend
 * and the session's, prints one line and exits 0, a gateway or not. Loaded by `bin/gateway.js` without the command
 * line's machinery: a status bar runs it on every refresh.
 */
export async function statusLineMain(flag: number | undefined, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const input = await readInput();
  const localKey = peekLocalKey(resolveConfigDir(env), env.GATEWAY_LOCAL_KEY?.trim() || undefined);
  const session = typeof input.session_id === "string" ? input.session_id : undefined;
  const found = localKey === undefined ? undefined : await ask(portsToAsk(env, flag), localKey, session);
  process.stdout.write(`${statusLine(found, input)}\n`);
}

/** The arguments the fast path takes (none, or `-p <n>`/`--port <n>`); undefined for anything else, which the full command line parses. */
export function fastArgs(args: readonly string[]): { port: number | undefined } | undefined {
  if (args.length === 0) return { port: undefined };
  const port = args.length === 2 && (args[0] === "-p" || args[0] === "--port") && /^\d{1,5}$/.test(args[1]!) ? Number(args[1]) : undefined;
  return port !== undefined && port <= 65535 ? { port } : undefined;
}
