import type { GatewayConfig, UpstreamConfig } from "../config/index.js";
import { ECHO_UPSTREAM, upstreamLabel } from "../config/index.js";
import type { EchoServer } from "../echo/echo-server.js";
import { createDispatcher } from "./create-dispatcher.js";
import type { KeySource } from "./key-source.js";
import type { Secrets } from "../secrets.js";
import { createUpstream, type Upstream } from "./upstream.js";

/**
 * Makes the key source of one upstream (the CLI decides: keychain, `GATEWAY_API_KEY`, an `env:` variable, none, the
 * client's own), or its sources in turn order when it has several keys (SPEC 11).
 */
export type KeySourceFor = (upstream: UpstreamConfig) => KeySource | readonly KeySource[];

/**
 * Every configured upstream, built once: what the router (`routing/router.ts`) chooses from, the model-list union
 * asks, and `/health` lists.
 */
export interface UpstreamSet {
  /** In file order, the one `upstream` made from a URL (`default`) first. */
  readonly all: readonly Upstream[];
  readonly default: Upstream;
  named(name: string): Upstream | undefined;
  /** Closes every connection pool and echo server. */
  close(): Promise<void>;
}

/** Builds the upstreams of `config`, starting an in-process echo server for each `echo` one. */
export async function openUpstreams(config: GatewayConfig, keySourceFor: KeySourceFor, secrets: Secrets): Promise<UpstreamSet> {
  const echoes: EchoServer[] = [];
  const all: Upstream[] = [];
  try {
    for (const upstreamConfig of config.upstreams) {
      // The echo upstream (and, through its replies, every format's descriptor) loads only when an upstream is echo.
      const echo = upstreamConfig.url === ECHO_UPSTREAM ? await (await import("../echo/echo-server.js")).startEchoServer({ messages: upstreamConfig.messagesSegment, gemini: upstreamConfig.geminiSegment }) : undefined;
      if (echo) echoes.push(echo);
      const base = new URL(echo?.url ?? upstreamConfig.url);
      all.push(
        createUpstream({
          config: upstreamConfig,
          base,
          label: upstreamLabel(upstreamConfig.url),
          keySource: keySourceFor(upstreamConfig),
          dispatcher: () => createDispatcher(base, upstreamConfig.timeouts),
          secrets,
        }),
      );
    }
  } catch (error) {
    await Promise.all(echoes.map((echo) => echo.close()));
    throw error;
  }
  const byName = new Map(all.map((upstream) => [upstream.name, upstream]));
  return {
    all,
    default: byName.get(config.defaultUpstream) ?? all[0]!,
    named: (name) => byName.get(name),
    async close() {
      await Promise.all(all.map((upstream) => upstream.close()));
      await Promise.all(echoes.map((echo) => echo.close()));
    },
  };
}
