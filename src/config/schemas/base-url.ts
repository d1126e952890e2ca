import * as v from "valibot";
import { isLoopbackHost } from "../loopback.js";
import { ECHO_UPSTREAM } from "../types.js";
import { nonEmptyText } from "./values.js";

/** An `upstreams` entry's name (SPEC section 10): 1-32 characters of a-z, 0-9 and "-". */
export const UPSTREAM_NAME = /^[a-z0-9-]{1,32}$/;

/** What a value of `upstream` (or an entry's `url`) is: a URL never matches `UPSTREAM_NAME` (it holds a ":"). */
export function upstreamKind(value: string): "echo" | "name" | "url" {
  if (value === ECHO_UPSTREAM) return "echo";
  return UPSTREAM_NAME.test(value) ? "name" : "url";
}

/**
 * The URL a value written without its scheme most likely means (`127.0.0.1:11434`, `localhost:8080/v1`,
 * `gateway.example.com`): `http://` before a loopback host, `https://` before any other; undefined for anything
 * that has a scheme or is not a host (a word, a path).
 */
export function withScheme(value: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || !/^[\w.-]+(:\d+)?(\/\S*)?$/.test(value)) return undefined;
  const host = value.split(/[:/]/)[0]!;
  if (!host.includes(".") && !/^localhost$/i.test(host) && !/:\d+/.test(value)) return undefined;
  const url = `${isLoopbackHost(host) ? "http" : "https"}://${value}`;
  return URL.canParse(url) ? url : undefined;
}

/** `expected`, and the URL a value without a scheme most likely means. */
const orWithScheme = (expected: string) => (issue: { input: unknown }) => {
  const meant = typeof issue.input === "string" ? withScheme(issue.input) : undefined;
  return meant ? `${expected} (did you mean "${meant}"?)` : expected;
};

const SECURE = "an https:// URL (plain http:// is only allowed for loopback hosts)";
const BARE = "a base URL without credentials, query or fragment";
const isSecure = (url: URL) => url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
const isBare = (url: URL) => !(url.search || url.hash || url.username || url.password);

/**
 * A base URL (SPEC section 7: `https://`, plain `http://` only for loopback hosts; no credentials, query or
 * fragment), normalised without a trailing slash; or one of the words `isWord` accepts, kept as it is.
 */
function baseUrl(isWord: (value: string) => boolean, expected: string) {
  const url = (test: (url: URL) => boolean) => (value: string) => isWord(value) || test(new URL(value));
  return v.pipe(
    nonEmptyText,
    v.check((value) => isWord(value) || URL.canParse(value), orWithScheme(expected)),
    v.check(url(isSecure), orWithScheme(SECURE)),
    v.check(url(isBare), BARE),
    v.transform((value) => (isWord(value) ? value : `${new URL(value).origin}${new URL(value).pathname.replace(/\/+$/, "")}`)),
  );
}

/**
 * The base the gateway puts its paths under: a URL whose path ends in the segment `/v1` (how providers write theirs:
 * `https://api.groq.com/openai/v1`) without it, since every path the gateway sends starts with `/v1` (or the
 * family's segment and `/v1`). Anything else as it is.
 */
export function baseWithoutV1(url: string): string {
  if (upstreamKind(url) !== "url") return url;
  const { origin, pathname } = new URL(url);
  return pathname.endsWith("/v1") ? `${origin}${pathname.slice(0, -"/v1".length)}` : url;
}

/** An `upstreams` entry's `url`: a base URL, or `echo`. */
export const upstreamUrl = baseUrl((value) => value === ECHO_UPSTREAM, '"echo" or a URL such as https://gateway.example.com');

/** The expected part of every message about `upstream`. */
export const UPSTREAM_CHOICE = '"echo", a URL such as https://gateway.example.com, or the name of an upstreams entry';

/** `upstream` (config, `GATEWAY_UPSTREAM`, `--upstream`): a base URL, `echo`, or a name (looked up later). */
export const upstreamChoice = baseUrl((value) => upstreamKind(value) !== "url", UPSTREAM_CHOICE);
