import { setFlagsFromString } from "node:v8";
import type { buildConnector, Dispatcher } from "undici";
import type { Timeouts } from "../config/index.js";
import { isLoopbackHost } from "../config/index.js";

/**
 * `connect` that closes a connection its client opened and then had nothing to send on. undici's client opens one
 * after each request aborted in the middle of its reply: the socket closes, the aborted request goes back to the
 * pending side of the queue, and the client connects for it before it sees that it was aborted and drops it
 * (nodejs/undici#5845); a request aborted while its connection was being made leaves one the same way. Such a
 * connection never carries a request and gets no keep-alive timer, so it stayed open until the upstream closed it:
 * one per aborted stream, as many as the most streams open at once.
 */
function closingUnused(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...result) => {
      const socket = result[1];
      const written = socket?.bytesWritten;
      callback(...result);
      // The client writes the request it connected for before the callback returns (its resume runs there), or
      // just after, when it is already resuming; a microtask later, nothing written means there is none.
      if (socket) queueMicrotask(() => socket.bytesWritten === written && socket.destroy());
    });
}

let servesForLong = false;

/** For `gateway start`, which serves for long: undici's WebAssembly keeps V8's optimising compiler (see below). */
export function compileWasmForServing(): void {
  servesForLong = true;
}

/**
 * undici parses HTTP with llhttp, a WebAssembly module, which V8 compiles again with TurboFan on a background thread;
 * Node waits for that thread before a process exits, so every command that called an upstream from its own process
 * stayed 0.1-0.4 s after its last line (a one-off `chat`, `models`, `doctor`, `add`, `login`, `catalog`; 0.6 s under
 * load), doing nothing. A process that ends after a request or two needs no more than the baseline compiler's code.
 * Here, where undici loads, so that commands that never call an upstream (`env`, `status`) load no `node:v8` for it.
 */
function compileWasmOnceUnlessServing(): void {
  if (!servesForLong) setFlagsFromString("--liftoff-only");
}

/**
 * A keep-alive connection pool for the upstream, with our timeouts in place of undici's (its 300 s
 * `headersTimeout` would cut off a model that thinks for longer). `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` are
 * honoured, except for loopback upstreams, which never go through a proxy. undici is loaded here, when the first
 * request needs it, not when the gateway starts: it is the largest package the gateway loads (about 40 ms), and
 * `/health`, the dashboard and every local error answer without it. Each connection's client is undici's own with
 * its `connect` wrapped (`closingUnused`), whether it connects directly or through a proxy's tunnel.
 */
export async function createDispatcher(base: URL, timeouts: Timeouts): Promise<Dispatcher> {
  // The four dispatchers alone (36 of undici's modules): its index loads all 110 of them, its fetch, cache stores and
  // mocks included, and makes Node load its own bundled undici too, which took a one-off `gateway chat` twice as long;
  // with the API methods its index gives every dispatcher (undici/index.js, `Object.assign(Dispatcher.prototype, api)`):
  // a proxy's tunnel is its client's `connect()`. These paths are undici's own files, not its API (it has no
  // `exports` map): the build bundles them (`scripts/build-cli.mjs`), so an install runs the files the build found,
  // and package.json takes undici's patch releases only (`~7.30.2`), a newer one by hand once the tests pass with it.
  compileWasmOnceUnlessServing();
  const [{ default: Agent }, { default: Client }, { default: EnvHttpProxyAgent }, { default: Pool }, { default: Dispatcher }, { default: api }] = await Promise.all([
    import("undici/lib/dispatcher/agent.js"),
    import("undici/lib/dispatcher/client.js"),
    import("undici/lib/dispatcher/env-http-proxy-agent.js"),
    import("undici/lib/dispatcher/pool.js"),
    import("undici/lib/dispatcher/dispatcher.js"),
    import("undici/lib/api/index.js"),
  ]);
  Object.assign(Dispatcher.prototype, api);
  const client = (origin: URL, options: object): Dispatcher => {
    const { connect } = options as { connect: buildConnector.connector };
    return new Client(origin, { ...options, connect: closingUnused(connect) });
  };
  const options = {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    // A pool per origin as undici makes it, whose clients each get a `connect` that the pool has built already.
    factory: (origin: string | URL, pool: object): Dispatcher => new Pool(origin, { ...pool, factory: client }),
  };
  return isLoopbackHost(base.hostname) ? new Agent(options) : new EnvHttpProxyAgent(options);
}
