import { request } from "node:http";
import type { Family } from "../formats/index.js";
import { gatewayError, statusError } from "../upstream/error-message.js";
import { bodyText, type ChatReply } from "./read-reply.js";

/**
 * The gateway a terminal client talks to: a running gateway of the same configuration (here), or its request path in
 * this process (`in-process-gateway.ts`, which loads only when none runs).
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
export async function refused(reply: ChatReply): Promise<never> {
  const text = await bodyText(reply.body).catch(() => "");
  const made = reply.headers["x-gateway-error"];
  if (typeof made === "string") throw gatewayError(made, reply.statusCode, text);
  throw statusError(String(reply.headers["x-gateway-upstream"] ?? "default"), reply.statusCode, text);
}

/** The request's headers: the local key in the family's own header, and what any client sends. */
export const requestHeaders = (family: Family, localKey: string, body: string | undefined): Record<string, string> => ({
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

/** A running gateway of this configuration on `port`, which takes `localKey`: its routes and aliases are the same. */
export function runningGateway(port: number, localKey: string): LocalGateway {
  return { send: sender(`http://127.0.0.1:${port}`, localKey), close: async () => {} };
}
