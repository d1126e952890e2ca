import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isUnsafePort } from "get-port-please";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ListenError } from "../errors/index.js";

export interface ListenOptions {
  /** Interface to bind. */
  host: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Slow-loris backstop: the whole request must arrive within this time, else Node answers 408. */
  requestTimeoutMs: number;
  /** Told of an error the handler let through; that request's connection is closed. */
  onInternalError: (error: unknown) => void;
}

export interface RunningServer {
  /** `http://127.0.0.1:8484` (no trailing slash). */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting and waits for open connections; safe to call twice. */
  close(): Promise<void>;
}

function portBusy(host: string, port: number, cause?: unknown): ListenError {
  return new ListenError(`Port ${port} on ${host} is already in use.`, {
    hint: `Stop whatever is using it (\`lsof -i :${port}\`), or start on another port: gateway start --port ${port + 1} (or --port 0 for any free port).`,
    cause,
  });
}

/**
 * Connections the kernel completes while the gateway is busy wait in this queue until it accepts them. Node's
 * default of 511 overflowed when a few hundred streams opened at once (a fan-out of agents, the bench's 1,000), and
 * every connection past it had its SYN dropped and waited a full second to try again. Linux caps it at somaxconn.
 */
const LISTEN_BACKLOG = 4096;

/** Node's `listen` as a promise: resolves once bound, rejects with the bind error (EADDRINUSE, EADDRNOTAVAIL). */
function bind(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Serves the app on Node's own HTTP/1.1 server, bound to exactly `host:port`: never another port, no banner of
 * anyone else's, no signal handlers (shutdown is ours and graceful). Not listhen: every one of its defaults had
 * to be overridden, and it loads node-forge, a QR-code encoder and consola's full build for HTTPS and a dev
 * banner the gateway never uses, which measured 45 ms of `gateway start` and 8 MB of idle memory.
 */
export async function listenHandler(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>, options: ListenOptions): Promise<RunningServer> {
  const { host, port } = options;
  if (port !== 0 && isUnsafePort(port)) {
    throw new ListenError(`Port ${port} is on the list of ports browsers refuse to connect to, so gateway does not serve on it.`, {
      hint: `Choose another port: gateway start --port 8484 (or --port 0 for any free port).`,
    });
  }
  // The handler answers every error itself; one that escapes it (a bug) costs that request its connection, never
  // the gateway's process, as an unhandled rejection would.
  const serve = (req: IncomingMessage, res: ServerResponse) =>
    void handler(req, res).catch((error: unknown) => {
      options.onInternalError(error);
      res.destroy();
    });
  const server = createServer({ requestTimeout: options.requestTimeoutMs, headersTimeout: Math.min(options.requestTimeoutMs, 30_000) }, serve);
  try {
    await bind(server, host, port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw portBusy(host, port, error);
    throw new ListenError(`Cannot listen on ${host}:${port}: ${(error as Error).message}`, {
      hint: "Check --host (it must be an address of this machine) and --port.",
      cause: error,
    });
  }
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  // close() also drops idle keep-alive connections (Node 19+); one promise, so a second call waits for the first.
  const closed = new Promise<void>((resolve) => server.once("close", resolve));
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= (server.close(), closed));
  return { url: `http://${shownHost}:${bound}`, port: bound, server, close };
}
