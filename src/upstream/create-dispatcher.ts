import { Agent, EnvHttpProxyAgent, type Dispatcher } from "undici";
import type { Timeouts } from "../config/index.js";
import { isLoopbackHost } from "../config/index.js";

/**
 * A keep-alive connection pool for the upstream, with our timeouts in place of undici's (its 300 s
 * `headersTimeout` would cut off a model that thinks for longer). `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` are
 * honoured, except for loopback upstreams, which never go through a proxy.
 */
export function createDispatcher(base: URL, timeouts: Timeouts): Dispatcher {
  const options = {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
  };
  return isLoopbackHost(base.hostname) ? new Agent(options) : new EnvHttpProxyAgent(options);
}
