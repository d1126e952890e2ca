import { randomBytes } from "node:crypto";
import { request, type IncomingHttpHeaders } from "node:http";
import type { Family } from "../formats/index.js";
import { gatewayError, statusError } from "../upstream/error-message.js";
import { VERSION } from "../version.js";
import type { GatewayConfig } from "../config/index.js";
import type { KeySourceFor } from "../upstream/upstream-set.js";

/**
 * The gateway a terminal client talks to: one of its own (in this process, on a free loopback port, known only to
 * it), or a running gateway of the same configuration.
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

/** A reply as the terminal client reads it: its status, its headers and its body's bytes as they arrive. */
export interface ChatReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Buffer>;
}

/** The whole body as text, decoded once (a character split between two reads stays one character). */
export async function bodyText(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Sends to the gateway at `url` with `localKey`, over `node:http`: undici takes longer to load (about a fifth of a
 * second on a busy laptop) than a one-off prompt through a running gateway takes in all.
 */
function sender(url: string, localKey: string): LocalGateway["send"] {
  return async (family, call) => {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers = { ...authHeaders(family, localKey), accept: "application/json", "user-agent": "gateway-cli", ...(body === undefined ? {} : { "content-type": "application/json" }) };
    const reply = await new Promise<ChatReply>((resolve, reject) => {
      const req = request(`${url}${call.path}`, { method: call.method, headers, signal: call.signal, agent: false }, (res) => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }));
      req.on("error", reject);
      req.end(body);
    });
    if (reply.statusCode < 400) return reply;
    const text = await bodyText(reply.body).catch(() => "");
    const made = reply.headers["x-gateway-error"];
    if (typeof made === "string") throw gatewayError(made, reply.statusCode, text);
    throw statusError(String(reply.headers["x-gateway-upstream"] ?? "default"), reply.statusCode, text);
  };
}

/**
 * `gateway chat` and friends go through a real gateway of their own, started in this process: routing, aliases,
 * translation, retries and fallback behave exactly as they do for a tool pointed at `gateway start`, with nothing
 * running beforehand. Its local key is random and never printed; it writes no request log. The server loads only
 * here, so a client that finds a running gateway never pays for it.
 */
export async function openLocalGateway(config: GatewayConfig, keySourceFor: KeySourceFor): Promise<LocalGateway> {
  const [{ startGateway }, { loadReasoningSeal }] = await Promise.all([import("../server/start-gateway.js"), import("../local-key/reasoning-secret.js")]);
  const localKey = `gw-${randomBytes(24).toString("base64url")}`;
  const gateway = await startGateway({
    config: { ...config, port: 0, host: "127.0.0.1", capture: "off" },
    keySourceFor,
    localKey,
    seal: loadReasoningSeal(config.configDir),
    version: VERSION,
  });
  return { send: sender(gateway.url, localKey), close: () => gateway.close(0) };
}

/** A running gateway of this configuration on `port`, which takes `localKey`: its routes and aliases are the same. */
export function runningGateway(port: number, localKey: string): LocalGateway {
  return { send: sender(`http://127.0.0.1:${port}`, localKey), close: async () => {} };
}
