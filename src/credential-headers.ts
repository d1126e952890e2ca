/**
 * The headers that carry credentials, below both the configuration (which refuses a key among an upstream's static
 * `headers`) and the upstream header policy (which never sends a client's on).
 */

/**
 * The client's local credentials (SPEC section 5): replaced by the upstream key, never sent on. Cookies belong to
 * localhost. Every other client header goes upstream; a `keyHeader` of the same name is replaced by the key.
 */
export const CLIENT_CREDENTIALS: ReadonlySet<string> = new Set(["authorization", "x-api-key", "x-goog-api-key", "cookie"]);

/** Every header that carries a key (the families', Azure's and Portkey's, proxies'): an upstream's static `headers` hold none. */
export const KEY_HEADERS: ReadonlySet<string> = new Set([...CLIENT_CREDENTIALS, "proxy-authorization", "api-key", "x-portkey-api-key"]);
