import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { Family } from "../formats/index.js";
import { gatewayError, statusError } from "../upstream/error-message.js";
import { VERSION } from "../version.js";
import { otlpSettings, type GatewayConfig } from "../config/index.js";
import { createExchange } from "../server/exchange.js";
import type { RequestPath } from "../server/request-path.js";
import { InProcessReply } from "./in-process-reply.js";
import { bodyText, type ChatReply } from "./read-reply.js";
import type { KeySourceFor } from "../upstream/upstream-set.js";

/**
 * The gateway a terminal client talks to: its request path in this process (no listener), or a running gateway of
 * the same configuration.
 */
export interface LocalGateway {
  /** Sends one request in `family` and returns the reply once its headers arrived; error statuses throw. */
  send(family: Family, call: { method: "GET" | "POST"; path: string; body?: unknown; signal: AbortSignal }): Promise<ChatReply>;
  close(): Promise<void>;
}

/** The local key in the family's own header, with the version header where the family needs one. */
function authHeaders(family: Family, key: string): Record<string, string> {
  const headers = family.auth.upstreamAuth(key);
  const version = family.auth.defaultVersion;
  return version === undefined ? headers : Object.assign(headers, { "anthropic-version": version });
}

/** A reply whose status is an error becomes the error the terminal shows: the gateway's own, or the upstream's. */
async function refused(reply: ChatReply): Promise<never> {
  const text = await bodyText(reply.body).catch(() => "");
  const made = reply.headers["x-gateway-error"];
  if (typeof made === "string") throw gatewayError(made, reply.statusCode, text);
  throw statusError(String(reply.headers["x-gateway-upstream"] ?? "default"), reply.statusCode, text);
}

/** The request's headers: the local key in the family's own header, and what any client sends. */
const requestHeaders = (family: Family, localKey: string, body: string | undefined): Record<string, string> => ({
  ...authHeaders(family, localKey),
  accept: "application/json",
  "user-agent": "gateway-cli",
  ...(body === undefined ? {} : { "content-type": "application/json" }),
});

/**
 * Sends to the gateway at `url` with `localKey`, over `node:http`: undici takes longer to load (about a fifth of a
 * second on a busy laptop) than a one-off prompt through a running gateway takes in all.
 */
function sender(url: string, localKey: string): LocalGateway["send"] {
  return async (family, call) => {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers = requestHeaders(family, localKey, body);
    const reply = await new Promise<ChatReply>((resolve, reject) => {
      const req = request(`${url}${call.path}`, { method: call.method, headers, signal: call.signal, agent: false }, (res) => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }));
      req.on("error", reject);
      req.end(body);
    });
    return reply.statusCode < 400 ? reply : refused(reply);
  };
}

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
 * Its local key is random and never printed. The server loads only here, so a client that finds a running gateway
 * never pays for it.
 */
export async function openLocalGateway(config: GatewayConfig, keySourceFor: KeySourceFor, onLogError: (message: string) => void): Promise<LocalGateway> {
  const [{ openRequestPath }, { loadReasoningSeal }, { createLogFile }] = await Promise.all([
    import("../server/request-path.js"),
    import("../local-key/reasoning-secret.js"),
    import("../request-log/log-file.js"),
  ]);
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

/** A running gateway of this configuration on `port`, which takes `localKey`: its routes and aliases are the same. */
export function runningGateway(port: number, localKey: string): LocalGateway {
  return { send: sender(`http://127.0.0.1:${port}`, localKey), close: async () => {} };
}
