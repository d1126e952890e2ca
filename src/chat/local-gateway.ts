import { randomBytes } from "node:crypto";
import { request } from "undici";
import type { Dispatcher } from "undici";
import type { Family } from "../formats/index.js";
import { loadReasoningSeal } from "../local-key/reasoning-secret.js";
import { startGateway, type Gateway } from "../server/start-gateway.js";
import { statusError } from "../upstream/error-message.js";
import { VERSION } from "../version.js";
import type { GatewayConfig } from "../config/index.js";
import type { KeySourceFor } from "../upstream/upstream-set.js";

/** A gateway of the terminal client's own: in this process, on a free loopback port, known only to it. */
export interface LocalGateway {
  gateway: Gateway;
  /** Sends one request in `family` and returns the reply once its headers arrived; error statuses throw. */
  send(family: Family, call: { method: "GET" | "POST"; path: string; body?: unknown; signal: AbortSignal }): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

/** The local key in the family's own header, with the version header where the family needs one. */
function authHeaders(family: Family, key: string): Record<string, string> {
  const headers = family.auth.upstreamAuth(key);
  const version = family.auth.defaultVersion;
  return version === undefined ? headers : Object.assign(headers, { "anthropic-version": version });
}

/**
 * `gateway chat` and friends go through a real gateway of their own, started in this process: routing, aliases,
 * translation, retries and fallback behave exactly as they do for a tool pointed at `gateway start`, with nothing
 * running beforehand. Its local key is random and never printed; it writes no request log.
 */
export async function openLocalGateway(config: GatewayConfig, keySourceFor: KeySourceFor): Promise<LocalGateway> {
  const localKey = `gw-${randomBytes(24).toString("base64url")}`;
  const gateway = await startGateway({
    config: { ...config, port: 0, host: "127.0.0.1", capture: "off" },
    keySourceFor,
    localKey,
    seal: loadReasoningSeal(config.configDir),
    version: VERSION,
  });
  return {
    gateway,
    async send(family, call) {
      const reply = await request(`${gateway.url}${call.path}`, {
        method: call.method,
        headers: { ...authHeaders(family, localKey), accept: "application/json", "user-agent": "gateway-cli", ...(call.body === undefined ? {} : { "content-type": "application/json" }) },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: call.signal,
      });
      if (reply.statusCode < 400) return reply;
      const text = await reply.body.text().catch(() => "");
      throw statusError(String(reply.headers["x-gateway-upstream"] ?? "default"), reply.statusCode, text);
    },
    close: () => gateway.close(0),
  };
}
