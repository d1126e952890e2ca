import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import { apiError, toApiError, type ApiError } from "../../errors/index.js";
import { acceptsResponsesSocket, chatFamily, type Family } from "../../formats/index.js";
import type { GatewayContext } from "../gateway-context.js";
import type { exchangeServer } from "../gateway-handler.js";
import { authenticate } from "../stages/authenticate.js";
import { checkHost, checkOrigin, repeatedHeader } from "../stages/guard.js";
import { resolve } from "../stages/resolve.js";
import { serveResponsesSocket } from "./session.js";

/** An HTTP answer on a socket that asked to upgrade: never 101, then closed. */
function refuse(socket: Duplex, family: Family, error: ApiError, requestId: string): void {
  const body = family.errors.json(error);
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Refused"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The server's `upgrade` event (SPEC 12, Codex over WebSocket). `GET /v1/responses` (under its family's prefix) is
 * accepted after the same guards as a POST there (section 3: one Host, a loopback one; an allowed Origin; the local
 * key or an own login, from the upgrade request's headers) and served by `serveResponsesSocket` with `ws` in noServer
 * mode; a refusal is answered at once in the chat family's shape. An upgrade on any other path is answered at once
 * with 426 in its path's family shape, never left hanging (Codex then falls back to HTTP). `onRefused` hears of each
 * refusal, so the gateway's output shows a client that tried. `close` ends every open socket (a shutdown: an upgraded
 * socket is no longer the HTTP server's to close).
 *
 * `ws` loads just after the gateway listens, in the background, not before: its 12 CommonJS files took 10-15 ms of
 * `gateway start` before its first `/health` (issue 52). Not on the first upgrade either: loaded at start, it left
 * Node's CommonJS-through-ES-module path warm for undici's first load, and without it the first model request took
 * about 45 ms more CPU (docs/performance.md). An upgrade that comes first waits for it; until then the socket's errors
 * are ours to hear (Node took its own listener off when it handed the socket over) and end it.
 */
export function handleUpgrades(ctx: GatewayContext, serve: ReturnType<typeof exchangeServer>, onRefused?: (method: string, path: string, status: number) => void) {
  let sockets: WebSocketServer | undefined;
  let loading: Promise<WebSocketServer> | undefined;
  let closed = false;
  const socketServer = () => (loading ??= import("ws").then(({ WebSocketServer }) => (sockets = new WebSocketServer({ noServer: true, maxPayload: ctx.config.maxBodyBytes }))));
  setImmediate(() => socketServer().catch((error: unknown) => ctx.onInternalError(error)));
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const resolved = resolve("POST", req.url ?? "/", req.headers, ctx.segments);
    const endpoint = resolved.kind === "proxy" ? resolved.endpoint : undefined;
    const family = endpoint?.family ?? chatFamily;
    const refused = (error: ApiError) => {
      // The path only: a query may hold a key (Gemini's key=).
      onRefused?.(req.method ?? "GET", (req.url ?? "/").split("?")[0]!, error.status);
      refuse(socket, family, error, ctx.nextRequestId());
    };
    if (req.method !== "GET" || !endpoint || !acceptsResponsesSocket(endpoint)) {
      return refused(apiError(426, `WebSocket connections are served at GET /v1/responses only (Codex's Responses transport); use plain HTTP for ${(req.url ?? "/").split("?")[0]}.`, { code: "upgrade_required" }));
    }
    try {
      const repeated = repeatedHeader(req.rawHeaders);
      checkHost(req.headers, ctx.anyHost, repeated);
      checkOrigin(req.headers, ctx.allowedOrigins);
      authenticate(family, req.headers, resolved.kind === "proxy" ? resolved.query : "", repeated, ctx.keyMatches, ctx.ownLogins);
    } catch (error) {
      return refused(toApiError(error, ctx.onInternalError));
    }
    const destroy = () => socket.destroy();
    socket.on("error", destroy);
    socketServer().then(
      (server) => {
        socket.off("error", destroy);
        // A shutdown that began while ws loaded: the socket would outlive it.
        if (closed) return socket.destroy();
        server.handleUpgrade(req, socket, head, (ws) => serveResponsesSocket(ws, req, serve));
      },
      (error: unknown) => {
        ctx.onInternalError(error);
        socket.destroy();
      },
    );
  };
  const close = (): void => {
    closed = true;
    for (const ws of sockets?.clients ?? []) ws.terminate();
  };
  return { upgrade, close };
}
