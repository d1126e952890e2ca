import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { notFound } from "../errors/index.js";
import { chatFamily } from "../formats/index.js";

/**
 * WebSocket upgrades are refused at once with a plain HTTP answer (never 101), carrying an `x-request-id` like every
 * error the gateway makes: Codex probes `GET /v1/responses` with an upgrade and falls back to HTTP when it is refused.
 */
export function refuseUpgrade(nextRequestId: () => string) {
  return (_req: IncomingMessage, socket: Duplex): void => {
    const body = JSON.stringify(
      chatFamily.errors.body(notFound("WebSocket connections are not supported by gateway; use plain HTTP (e.g. POST /v1/responses).")),
    );
    socket.end(
      `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${nextRequestId()}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
}
