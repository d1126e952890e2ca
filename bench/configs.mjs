// The gateway configurations the bench runs: one upstream as most users have it, and five upstreams with 50 model
// patterns and aliases, where one upstream serves chat only (the translated scenarios) and four answer model lists
// at different speeds (the union's latency).
export const ALIAS = "bench-alias";
/** Routed to the chat-only upstream of the several-upstreams config: a messages, responses or Gemini client there is translated. */
export const TRANSLATED_MODEL = "t";
/** How late each upstream of the several-upstreams config lists its models, ms: the union should take the slowest, not the sum. */
export const LIST_LAGS = { primary: 0, "chat-only": 10, vendor3: 20, vendor4: 40, vendor5: 80 };

/** One upstream (the user's key in GATEWAY_API_KEY) and one alias: what the passthrough scenarios measure. */
export const oneUpstream = (url) => ({ upstream: url, models: { [ALIAS]: "m" } });

/**
 * Five upstreams on the same fake server (each with its own base path, so each is its own connection pool), 40 model
 * patterns spread over them and 10 aliases (one of them `ALIAS`), 50 in all. The aliased model's target `m` is an
 * exact id of the primary, found in the router's map; the patterns are there to be skipped.
 */
export function severalUpstreams(url) {
  const key = "env:BENCH_UPSTREAM_KEY";
  const base = (name) => (LIST_LAGS[name] ? `${url}/lag-${LIST_LAGS[name]}` : url);
  const patterns = (vendor) => Array.from({ length: 10 }, (_, i) => `${vendor}-model-${i}-*`);
  const aliases = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`alias-${i}`, `vendor3-model-${i}-latest`]));
  return {
    upstream: "primary",
    models: { ...aliases, [ALIAS]: "m" },
    upstreams: {
      primary: { url: base("primary"), key, models: ["m", ...patterns("vendor1")] },
      "chat-only": { url: base("chat-only"), key, formats: ["chat"], models: [TRANSLATED_MODEL, "tools", "slow-*", ...patterns("vendor2").slice(0, 6)] },
      vendor3: { url: base("vendor3"), key, models: patterns("vendor3") },
      vendor4: { url: base("vendor4"), key, formats: ["messages"], models: patterns("vendor4") },
      vendor5: { url: base("vendor5"), key, formats: ["gemini"], models: patterns("vendor5").slice(0, 3) },
    },
  };
}

/** claude-code-router's config (its README: Providers, Router, APIKEY, PORT), pointed at the same fake upstream. */
export const ccrConfig = (url, upstreamKey, localKey, port) => ({
  LOG: false,
  HOST: "127.0.0.1",
  PORT: port,
  APIKEY: localKey,
  NON_INTERACTIVE_MODE: true,
  Providers: [{ name: "bench", api_base_url: `${url}/v1/chat/completions`, api_key: upstreamKey, models: ["m", TRANSLATED_MODEL, "tools"] }],
  Router: { default: `bench,${TRANSLATED_MODEL}` },
});
