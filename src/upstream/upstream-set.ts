import type { GatewayConfig, UpstreamConfig } from "../config/index.js";
import { ECHO_UPSTREAM } from "../config/index.js";
import { startEchoServer, type EchoServer } from "../echo/echo-server.js";
import { createModelTable } from "../routing/model-table.js";
import { createDispatcher } from "./create-dispatcher.js";
import type { KeySource } from "./key-source.js";
import type { Secrets } from "../secrets.js";
import { createUpstream, type Upstream } from "./upstream.js";

/** Makes the key source of one upstream (the CLI decides: keychain, `GATEWAY_API_KEY`, an `env:` variable, none). */
export type KeySourceFor = (upstream: UpstreamConfig) => KeySource;

/**
 * Every configured upstream, built once, and the router that picks one per request (SPEC section 10, Routing): the
 * first upstream in file order whose `models` lists the exact id, else the first whose pattern matches it, else the
 * default. Nothing outside this folder knows how many upstreams there are.
 */
export interface UpstreamSet {
  /** In file order, the one `upstream` made from a URL (`default`) first. */
  readonly all: readonly Upstream[];
  readonly default: Upstream;
  /** The upstream a request naming `model` goes to (the model after its alias); the default when it names none. */
  route(model: string | undefined): Upstream;
  /** The upstreams tried after `upstream` fails before the first byte: its own `fallback` list, in order. */
  fallbacks(upstream: Upstream): readonly Upstream[];
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
      const echo = upstreamConfig.url === ECHO_UPSTREAM ? await startEchoServer({ messages: upstreamConfig.messagesSegment, gemini: upstreamConfig.geminiSegment }) : undefined;
      if (echo) echoes.push(echo);
      const base = new URL(echo?.url ?? upstreamConfig.url);
      all.push(
        createUpstream({
          config: upstreamConfig,
          base,
          label: echo ? ECHO_UPSTREAM : base.origin,
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
  const fallback = byName.get(config.defaultUpstream) ?? all[0]!;
  const table = createModelTable(all.flatMap((upstream) => upstream.config.models.map((model) => [model, upstream] as const)));
  const fallbacks = new Map(all.map((upstream) => [upstream, upstream.config.fallback.flatMap((name) => byName.get(name) ?? [])]));
  return {
    all,
    default: fallback,
    route: (model) => (model === undefined ? fallback : (table.lookup(model) ?? fallback)),
    fallbacks: (upstream) => fallbacks.get(upstream) ?? [],
    named: (name) => byName.get(name),
    async close() {
      await Promise.all(all.map((upstream) => upstream.close()));
      await Promise.all(echoes.map((echo) => echo.close()));
    },
  };
}
