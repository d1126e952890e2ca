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

/** The headers a client's own credential travels in (SPEC 11, Your own login): sent on unchanged to `key: "client"` upstreams only. */
export const OWN_CREDENTIALS: readonly string[] = ["authorization", "x-api-key", "x-goog-api-key"];

/** The values of a client's own credential: each credential header it sent, and the one its family checked (a Gemini `key=`). */
export function ownCredentialValues(headers: Readonly<Record<string, string | string[] | undefined>>, presented: string | undefined): string[] {
  const values = OWN_CREDENTIALS.flatMap((name) => [headers[name] ?? []].flat());
  return presented === undefined ? values : [...values, presented];
}
