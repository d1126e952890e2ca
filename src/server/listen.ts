import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isUnsafePort } from "get-port-please";
import { listen, type Listener } from "listhen";
import { toNodeHandler } from "h3/node";
import type { H3 } from "h3";
import { ListenError } from "../errors/index.js";

export interface ListenOptions {
  /** Interface to bind. */
  host: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Slow-loris backstop: the whole request must arrive within this time, else Node answers 408. */
  requestTimeoutMs: number;
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
 * Serves the app with listhen, with every one of its implicit defaults overridden: an explicit loopback
 * hostname, `public: false` (our own `--host` flag would otherwise flip it), no silent switch to another port,
 * no process.exit on SIGINT (we shut down gracefully) and no banner (we print our own).
 */
export async function listenApp(app: H3, options: ListenOptions): Promise<RunningServer> {
  const { host, port } = options;
  if (port !== 0 && isUnsafePort(port)) {
    throw new ListenError(`Port ${port} is on the list of ports browsers refuse to connect to, so gateway does not serve on it.`, {
      hint: `Choose another port: gateway start --port 8484 (or --port 0 for any free port).`,
    });
  }
  let listener: Listener;
  try {
    listener = await listen(toNodeHandler(app), {
      hostname: host,
      public: false,
      port: port === 0 ? { port: 0, random: true, verbose: false } : { port, alternativePortRange: [port, port], random: false, verbose: false },
      autoClose: false,
      showURL: false,
      isTest: false,
      isProd: true,
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === "GetPortError" || (error as NodeJS.ErrnoException).code === "EADDRINUSE") throw portBusy(host, port, error);
    throw new ListenError(`Cannot listen on ${host}:${port}: ${(error as Error).message}`, {
      hint: "Check --host (it must be an address of this machine) and --port.",
      cause: error,
    });
  }
  const server = listener.server as Server;
  const bound = (server.address() as AddressInfo).port;
  if (port !== 0 && bound !== port) {
    // listhen's port finder falls back to another port when it cannot take this one; never accept that.
    await listener.close();
    throw portBusy(host, port);
  }
  server.requestTimeout = options.requestTimeoutMs;
  server.headersTimeout = Math.min(server.requestTimeout, 30_000);
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return { url: `http://${shownHost}:${bound}`, port: bound, server, close: () => listener.close() };
}
