import type { GatewayConfig, UpstreamConfig } from "../config/index.js";

/**
 * What the gateway did with an upstream URL that ends in `/v1` (issue 37, item 22), as one line; undefined for one
 * used as given. `alone`: the only upstream, which needs no name.
 */
export function baseUrlNotice(upstream: UpstreamConfig, alone: boolean): string | undefined {
  if (upstream.urlAsGiven === undefined) return undefined;
  return `Upstream${alone ? "" : ` ${upstream.name}`}: ${upstream.urlAsGiven} ends in /v1, which the gateway adds to every path itself: it uses ${upstream.url} as the base.`;
}

/** The notice of every upstream of `config` whose URL the gateway reads without its `/v1`. */
export function baseUrlNotices(config: GatewayConfig): string[] {
  return config.upstreams.flatMap((upstream) => baseUrlNotice(upstream, config.upstreams.length === 1) ?? []);
}

/** Where a URL of the wrong base shows first: the model list a key check asks is not there. */
export const CHECK_BASE_URL = "it is the base the API's /v1 paths follow (https://api.groq.com/openai for https://api.groq.com/openai/v1/chat/completions)";
