import { randomBytes } from "node:crypto";
import { otlpSettings, type GatewayConfig } from "../config/index.js";
import { createExchange } from "../server/exchange.js";
import { openRequestPath, type RequestPath } from "../server/request-path.js";
import { loadReasoningSeal } from "../local-key/reasoning-secret.js";
import { createLogFile } from "../request-log/log-file.js";
import type { KeySourceFor } from "../upstream/upstream-set.js";
import { VERSION } from "../version.js";
import { InProcessReply } from "./in-process-reply.js";
import { refused, requestHeaders, type LocalGateway } from "./local-gateway.js";

/**
 * Hands each request to `path` as an exchange of this process (`InProcessReply`), through the same stages a request
 * to `gateway start` runs, with no socket between the terminal and the gateway. The Host header names the configured
 * address, which nothing listens on.
 */
function inProcessSender(path: RequestPath, localKey: string): LocalGateway["send"] {
  const host = `127.0.0.1:${path.ctx.config.port}`;
  return async (family, call) => {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers = { host, ...requestHeaders(family, localKey, body) };
    const sink = new InProcessReply();
    const x = createExchange({ method: call.method, url: call.path, headers, rawHeaders: Object.entries(headers).flat() }, sink);
    const bytes = Buffer.from(body ?? "");
    call.signal.throwIfAborted();
    call.signal.addEventListener("abort", () => sink.abort(), { once: true });
    void path.serve(x, async () => bytes);
    const reply = await sink.reply;
    return reply.statusCode < 400 ? reply : refused(reply);
  };
}

/**
 * `gateway chat` and friends, with no gateway of this configuration running, go through the gateway's request path in
 * this process: routing, aliases, translation, retries, fallback, budgets and the request log behave exactly as they
 * do for a tool pointed at `gateway start`, without a listener (nothing is bound, so a port in use does not matter).
 * Its local key is random and never printed. The server loads only here, and this module only when no gateway of
 * this configuration runs, so a client that finds a running one never pays for it. What it needs it imports
 * statically: a dynamic import is one more entry to esbuild, which splits the modules it shares with `gateway start`
 * into more, smaller chunks for both (issue 52: the one-off chat loaded 82 of dist's files, 72 after).
 */
export async function openLocalGateway(config: GatewayConfig, keySourceFor: KeySourceFor, onLogError: (message: string) => void): Promise<LocalGateway> {
  const localKey = `gw-${randomBytes(24).toString("base64url")}`;
  const logFile = createLogFile({ dir: config.stateDir, onError: onLogError });
  const path = await openRequestPath({
    config: { ...config, capture: "off" },
    keySourceFor,
    localKey,
    seal: loadReasoningSeal(config.configDir),
    version: VERSION,
    onRequest: logFile.sink,
    otlp: otlpSettings(config),
  });
  return {
    send: inProcessSender(path, localKey),
    async close() {
      await path.close();
      await logFile.close();
    },
  };
}
