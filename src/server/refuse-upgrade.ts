import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { notFound } from "../errors/index.js";
import { chatFamily } from "../formats/index.js";

/**
 * WebSocket upgrades are refused at once with a plain HTTP answer (never 101), carrying an `x-request-id` like every
 * error the gateway makes: Codex probes `GET /v1/responses` with an upgrade and falls back to HTTP when it is refused.
 * `onRefused` hears of each one, so the server log shows a client that tried (a Codex on its built-in provider).
 */
export function refuseUpgrade(nextRequestId: () => string, onRefused?: (method: string, path: string) => void) {
  return (req: IncomingMessage, socket: Duplex): void => {
    // The path only: a query may hold a key (Gemini's key=).
    onRefused?.(req.method ?? "GET", (req.url ?? "/").split("?")[0]!);
    const body = JSON.stringify(
      chatFamily.errors.body(notFound("WebSocket connections are not supported by gateway; use plain HTTP (e.g. POST /v1/responses).")),
    );
    socket.end(
      `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${nextRequestId()}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
}
