import type { CaptureMode } from "../config/index.js";
import type { RequestRecord } from "../request-log/record.js";
import { redactValues, Secrets } from "../secrets.js";

/** One captured exchange: what went upstream and what came back, credentials removed. */
export interface Capture {
  request: { method: string; path: string; headers: Record<string, string>; body: string | undefined };
  response: { status: number; headers: Record<string, string>; eventStream: boolean } | undefined;
  /** The reply as it passed: each chunk with its arrival time in ms after the request started. */
  chunks: { at: number; text: string }[];
  /** Each request made upstream, retries and fallbacks included, in order: its status or why there was none. */
  attempts: CapturedAttempt[];
}

export interface CapturedAttempt {
  upstream: string;
  status?: number;
  failure?: string;
  /** Ms to the attempt's headers or its failure, to a tenth. */
  ms: number;
}

export interface CaptureLimits {
  /** @default 200 */
  maxRequests: number;
  /** @default 64 MiB */
  maxBytes: number;
}

/** A capture being filled while its request is in flight. */
export interface CaptureRecorder {
  /** The request body, once it was read (a request refused before that has none). */
  requestBody(body: Buffer | undefined): void;
  response(status: number, headers: Record<string, string>, eventStream: boolean): void;
  chunk(at: number, data: Buffer): void;
  attempt(attempt: CapturedAttempt): void;
  /** A secret of this request only (a client's own credential, SPEC 11): kept out of its capture like the gateway's keys. */
  hide(secret: string): void;
  /** Keeps the capture when the mode wants this request, under the limits. */
  finish(record: RequestRecord): void;
}

const wanted = (mode: CaptureMode, record: RequestRecord): boolean =>
  mode === "all" || (mode === "errors" && (record.status >= 400 || record.outcome !== "complete"));

/**
 * A reply's chunks as text without credentials. A key can be cut across two chunks, so the joined text is what is
 * checked; a reply that holds one (an upstream echoing the key it was sent in its error) is kept redacted as one
 * chunk at the time of its first: its timing matters less than the key.
 */
function redactChunks(chunks: { at: number; text: string }[], redact: (text: string) => string): { at: number; text: string }[] {
  const whole = chunks.map((chunk) => chunk.text).join("");
  const clean = redact(whole);
  return clean === whole ? chunks : [{ at: chunks[0]!.at, text: clean }];
}

/**
 * Bodies of recent requests in memory only (SPEC section 9): at most `maxRequests` and `maxBytes`, the oldest
 * dropped first, never written to disk, and without a key the gateway knows (`redactKnown`: an upstream may echo its
 * key in an error, a client may paste one into a prompt) or a request's own credential (`hide`). A reply's chunks are kept as the references undici handed over
 * (no copy on the hot path) and decoded to text only when the request ends.
 */
export function createCaptureStore(mode: CaptureMode, redactKnown: (text: string) => string, limits: CaptureLimits = { maxRequests: 200, maxBytes: 64 * 1024 * 1024 }) {
  const kept = new Map<string, { capture: Capture; bytes: number }>();
  let bytes = 0;

  function keep(id: string, capture: Capture, size: number): void {
    if (size > limits.maxBytes) return;
    kept.set(id, { capture, bytes: size });
    bytes += size;
    for (const [oldest, entry] of kept) {
      if (kept.size <= limits.maxRequests && bytes <= limits.maxBytes) break;
      kept.delete(oldest);
      bytes -= entry.bytes;
    }
  }

  return {
    mode,
    /** A recorder for one request, or undefined when capture is off (then `describe` is never called). */
    start(describe: () => Capture["request"]): CaptureRecorder | undefined {
      if (mode === "off") return undefined;
      const request = describe();
      let response: Capture["response"];
      const chunks: { at: number; data: Buffer }[] = [];
      const attempts: CapturedAttempt[] = [];
      const own = new Secrets();
      let size = Buffer.byteLength(request.body ?? "");
      return {
        requestBody(body) {
          request.body = body?.toString("utf8");
          size += body?.length ?? 0;
        },
        response(status, headers, eventStream) {
          response = { status, headers, eventStream };
        },
        chunk(at, data) {
          // Past the limit the reply is not kept anyway; stop holding its chunks.
          if (size > limits.maxBytes) return;
          chunks.push({ at, data });
          size += data.length;
        },
        attempt(attempt) {
          attempts.push({ ...attempt, ms: Math.round(attempt.ms * 10) / 10 });
        },
        hide(secret) {
          own.remember(secret);
        },
        finish(record) {
          if (!wanted(mode, record)) return;
          const redact = (text: string) => own.redact(redactKnown(text));
          const decoder = new TextDecoder();
          const text = chunks.map(({ at, data }) => ({ at: Math.round(at * 10) / 10, text: decoder.decode(data, { stream: true }) }));
          const clean = { ...request, path: redact(request.path), headers: redactValues(request.headers, redact), body: request.body === undefined ? undefined : redact(request.body) };
          const reply = response && { ...response, headers: redactValues(response.headers, redact) };
          keep(record.requestId, { request: clean, response: reply, chunks: redactChunks(text, redact), attempts }, size);
        },
      };
    },
    get: (id: string): Capture | undefined => kept.get(id)?.capture,
    stats: () => ({ requests: kept.size, bytes }),
  };
}

export type CaptureStore = ReturnType<typeof createCaptureStore>;
