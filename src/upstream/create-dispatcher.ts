import type { Dispatcher } from "undici";
import type { Timeouts } from "../config/index.js";
import { isLoopbackHost } from "../config/index.js";

/**
 * A keep-alive connection pool for the upstream, with our timeouts in place of undici's (its 300 s
 * `headersTimeout` would cut off a model that thinks for longer). `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` are
 * honoured, except for loopback upstreams, which never go through a proxy. undici is loaded here, when the first
 * request needs it, not when the gateway starts: it is the largest module the gateway loads (about 60 ms), and
 * `/health`, the dashboard and every local error answer without it.
 */
export async function createDispatcher(base: URL, timeouts: Timeouts): Promise<Dispatcher> {
  const { Agent, EnvHttpProxyAgent } = await import("undici");
  const options = {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
  };
  return isLoopbackHost(base.hostname) ? new Agent(options) : new EnvHttpProxyAgent(options);
}
