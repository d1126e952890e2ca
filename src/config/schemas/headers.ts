import * as v from "valibot";
import { KEY_HEADERS } from "../../credential-headers.js";
import { frozenMap, mapOf } from "./shapes.js";

/**
 * Header policy of an upstream's static `headers` and `keyHeader` (SPEC section 10): names as RFC 9110 allows,
 * never a credential (the config file never holds a key: SPEC section 7) and never a header that belongs to one
 * connection or one body, which the gateway makes itself.
 */

/** RFC 9110 5.6.2: a header name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 5.5: what Node lets through in a header value (no line breaks, no other control characters). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Hop-by-hop headers (RFC 9110 7.6.1), and `host` and `content-length`, which describe one request's connection and body. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"]);

const CONNECTION = "free of connection headers (hop-by-hop ones, Host, Content-Length): the gateway sets those itself";

/**
 * `keyHeader`: the header that carries the bare key instead of the format's usual one (Azure's `api-key`). Lower
 * case, as the client's headers are: the key then replaces a client header of that name instead of going beside it.
 */
export const keyHeader = v.pipe(
  v.string("a header name such as api-key"),
  v.check((name) => TOKEN.test(name), "a header name such as api-key"),
  v.check((name) => !CONNECTION_HEADERS.has(name.toLowerCase()), CONNECTION),
  v.transform((name) => name.toLowerCase()),
);

const VALUE = "a string without line breaks or control characters";

/** `headers`: static, non-secret headers added to every request (OpenRouter's `HTTP-Referer`, Portkey's routing). */
export const staticHeaders = v.pipe(
  mapOf(
    v.pipe(
      v.string(),
      v.check((name) => TOKEN.test(name), 'an object whose keys are header names such as "X-Title"'),
      v.check(
        (name) => !KEY_HEADERS.has(name.toLowerCase()),
        'free of credentials: give the key with "key" (the keychain, or "env:<VAR>") and its header with "keyHeader"',
      ),
      v.check((name) => !CONNECTION_HEADERS.has(name.toLowerCase()), CONNECTION),
    ),
    v.pipe(v.string(VALUE), v.check((value) => FIELD_VALUE.test(value), VALUE)),
    'an object of header names to values, e.g. {"X-Title": "my-app"}',
  ),
  v.check(
    (headers) => new Set(Object.keys(headers).map((name) => name.toLowerCase())).size === Object.keys(headers).length,
    "an object that names each header once (header names ignore case)",
  ),
  v.transform(frozenMap),
);
