import { parseHttpDate } from "./http-date.js";

/** Statuses worth another try before the first byte reaches the client (529: Anthropic-style overload). */
export const RETRYABLE_STATUS: ReadonlySet<number> = new Set([429, 500, 502, 503, 529]);

/** Longest `retry-after` the gateway waits for; a longer one goes to the client at once. */
export const MAX_RETRY_AFTER_MS = 30_000;

const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * `retry-after` as milliseconds from now: delay-seconds (digits only) or an HTTP-date (RFC 9110 section 10.2.3).
 * Undefined when absent, sent twice, or anything else (`-1`, `1.5`, `5, 7`): SPEC 11 counts those as absent.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = parseHttpDate(trimmed, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter: attempt 0 waits 250-500 ms, attempt 1 500-1000 ms, up to 8 s. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** How long to wait before retrying a response, or undefined when it must go to the client as it is. */
export function retryDelayFor(status: number, retryAfter: string | string[] | undefined, attempt: number): number | undefined {
  if (!RETRYABLE_STATUS.has(status)) return undefined;
  const asked = parseRetryAfter(retryAfter);
  if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return undefined;
  return Math.max(asked ?? 0, backoffDelay(attempt));
}

const CONNECTION_FAILURES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** The error code undici or the OS attached, looking through `cause` chains. */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * undici's word for a reply it refuses to parse (an unrequested `100 Continue`, an unasked-for upgrade): the
 * upstream did answer, so the request reached it and must not be sent again.
 */
export function isUnreadableReply(error: unknown): boolean {
  const message = (error as Error | undefined)?.message;
  return errorCode(error) === "UND_ERR_SOCKET" && (message === "bad response" || message === "bad upgrade");
}

/** A failure to get any response at all, which is safe to retry. */
export function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && CONNECTION_FAILURES.has(code) && !isUnreadableReply(error);
}

/** Whether an undici error was one of our timeouts firing. */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return code === "UND_ERR_CONNECT_TIMEOUT" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
}
