import { ECHO_UPSTREAM, type GatewayConfig } from "../config/index.js";
import { startEchoServer } from "../echo/echo-server.js";
import { createDispatcher } from "./create-dispatcher.js";
import type { KeySource } from "./key-source.js";
import { createUpstreamClient, type UpstreamClient } from "./upstream-client.js";

/** An upstream client plus whatever it needed started (the echo server). */
export interface OpenUpstream {
  client: UpstreamClient;
  /** Closes the connection pool and the echo server, if any. */
  close(): Promise<void>;
}

/**
 * Builds the upstream client for a config: the configured URL, or a freshly started in-process echo server when
 * the upstream is `echo`. Shared by `gateway start` and `gateway chat`, so both behave identically.
 */
export async function openUpstream(config: GatewayConfig, keySource: KeySource): Promise<OpenUpstream> {
  const echo = config.upstream === ECHO_UPSTREAM ? await startEchoServer({ messages: config.messagesSegment, gemini: config.geminiSegment }) : undefined;
  const base = new URL(echo?.url ?? config.upstream);
  const client = createUpstreamClient({
    target: { base, label: echo ? ECHO_UPSTREAM : base.origin },
    dispatcher: () => createDispatcher(base, config.timeouts),
    keySource,
    retries: config.retries,
    anthropicVersion: config.anthropicVersion,
  });
  return {
    client,
    async close() {
      await client.close();
      await echo?.close();
    },
  };
}
