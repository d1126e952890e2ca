import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { noUsage, type Usage, type UsageReader } from "../../formats/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { createSseDecoder, decodeEvents, type SseMessage } from "../../sse/sse.js";
import { lastObjectOf } from "../json-scan.js";
import { firstEventGivingValueOf, includesBytes, lastEventEnd } from "./event-boundary.js";

/** Largest non-stream body kept for reading its usage; bigger ones are not observed. */
const MAX_OBSERVED_BODY = 1024 * 1024;

/** Watches a reply go by and reports its usage at the end, without holding on to a stream. */
export interface UsageObserver {
  observe(chunk: Buffer): void;
  result(): Usage;
  /** The characters of text, reasoning and tool calls relayed, when the observer was asked to count them. */
  relayedChars(): number | undefined;
}

const NOT_COUNTED = (): undefined => undefined;

const IGNORE = () => {};

/** Synchronous decompressors for a compressed reply kept whole (at most `MAX_OBSERVED_BODY`), read once at its end. */
const INFLATE: Readonly<Record<string, (data: Buffer) => Buffer>> = { gzip: gunzipSync, "x-gzip": gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

/** Keeps up to `MAX_OBSERVED_BODY` bytes by reference and hands them, joined, to `read` at the end. */
function wholeBody(read: (body: Buffer) => void): { observe(chunk: Buffer): void; flush(): void } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    observe(chunk) {
      size += chunk.length;
      if (size <= MAX_OBSERVED_BODY) chunks.push(chunk);
    },
    flush() {
      if (size <= MAX_OBSERVED_BODY && chunks.length > 0) read(Buffer.concat(chunks));
      chunks.length = 0;
    },
  };
}

/**
 * Token usage of a passthrough reply, read in the convention of its format (`UsageReader`). Event streams are
 * parsed where their bytes mention usage, and only events that do are decoded as JSON; JSON bodies are kept (by
 * reference, up to 1 MiB) and at their end only their usage object is parsed (the whole body when the last usage
 * key holds no object with counts). A compressed reply (passthrough keeps the upstream's encoding)
 * is kept the same way and decompressed once at its end, off the path of its bytes. A JSON reply that reports no
 * usage is parsed whole, and what it relays counted where its format can (`UsageReader.replyChars`), for the
 * gateway's estimate.
 *
 * `countText`: the request's stream will report no usage (`UsageReader.unreported`), so every event is parsed and
 * what it relays counted, for the gateway's estimate; only such a stream pays for it.
 */
export function createUsageObserver(reader: UsageReader, contentType: string | undefined, contentEncoding: string | undefined, countText = false): UsageObserver {
  const usage = noUsage();
  const read = (text: string) => {
    const value = parseJsonObject(text);
    if (value) reader.read(value, usage);
  };
  const isEventStream = contentType?.startsWith("text/event-stream") === true;
  const marker = Buffer.from(reader.marker);
  const usageKey = reader.marker.slice(1, -1);
  const reported = () => usage.inputTokens !== undefined || usage.outputTokens !== undefined;
  const readJsonUsage = (body: Buffer) => {
    // Two searches on purpose: the anchored forward one rules out a reply without usage at memchr speed, where a
    // backward `lastIndexOf` would crawl all of it; the backward one then finds a reply's usage near its end.
    if (!includesBytes(body, marker)) return;
    const slice = lastObjectOf(body, marker);
    if (!slice) return read(body.toString("utf8"));
    const value = parseJsonObject(slice.toString("utf8"));
    if (value) reader.read({ [usageKey]: value }, usage);
    // The last `"usage"` may be nested after the reply's own (a tool schema's property, echoed back): it holds no
    // counts, and the whole reply is read instead.
    if (!reported()) read(body.toString("utf8"));
  };
  // The characters a JSON reply without usage relays, for its estimate (SPEC 11, Budgets); undefined otherwise.
  let jsonChars: number | undefined;
  const readJson = (body: Buffer) => {
    readJsonUsage(body);
    if (reported() || !reader.replyChars) return;
    const value = parseJsonObject(body.toString("utf8"));
    if (value) jsonChars = reader.replyChars(value);
  };
  const jsonCharsOf = () => jsonChars;
  const readEvent = (event: SseMessage) => {
    if (event.data.includes(reader.marker)) read(event.data);
  };
  const readBody = (body: Buffer) => (isEventStream ? decodeEvents(body).forEach(readEvent) : readJson(body));
  const encoding = contentEncoding?.trim().toLowerCase();
  const unreported = countText && isEventStream ? reader.unreported : undefined;
  if (unreported && (!encoding || encoding === "identity")) {
    let chars = 0;
    // Each event is parsed once for both: its usage (where its text names it) and the text it relays. Parsed twice,
    // the parse was a fifth of the gateway's CPU on such a stream under load (docs/performance.md).
    const decoder = createSseDecoder((event) => {
      if (event.data === "[DONE]") return;
      const value = parseJsonObject(event.data);
      if (!value) return;
      if (event.data.includes(reader.marker)) reader.read(value, usage);
      chars += unreported.relayedChars(value);
    });
    return { observe: (chunk) => decoder.feed(chunk), result: () => usage, relayedChars: () => chars };
  }
  if (encoding && encoding !== "identity") {
    const inflate = INFLATE[encoding];
    if (!inflate) return { observe: IGNORE, result: () => usage, relayedChars: NOT_COUNTED };
    const body = wholeBody((data) => {
      try {
        readBody(inflate(data));
      } catch {
        // A body that does not decompress carries no usage the gateway can read.
      }
    });
    return { observe: body.observe, result: () => (body.flush(), usage), relayedChars: jsonCharsOf };
  }
  if (isEventStream) {
    // Made when a chunk first needs it: many streams carry usage only in their last events.
    let decoder: ReturnType<typeof createSseDecoder> | undefined;
    // True while the parser holds nothing of an unfinished event: the last chunk fed ended with a blank line.
    let atBoundary = true;
    const observe = (chunk: Buffer) => {
      const endsEvent = lastEventEnd(chunk) === chunk.length;
      // Whole events are parsed from the first that gives the marker a value: the usual chunk skips the parser, its
      // strings and its garbage (about a third of the gateway's CPU per stream over the floor's, in the profile), and
      // an OpenAI stream that arrives in one read parses its usage event alone.
      const from = atBoundary && endsEvent ? firstEventGivingValueOf(chunk, marker) : 0;
      if (from === -1) return;
      decoder ??= createSseDecoder(readEvent);
      decoder.feed(from === 0 ? chunk : chunk.subarray(from));
      atBoundary = endsEvent;
    };
    return { observe, result: () => usage, relayedChars: NOT_COUNTED };
  }
  if (!contentType?.includes("json")) return { observe: IGNORE, result: () => usage, relayedChars: NOT_COUNTED };
  const body = wholeBody(readBody);
  return { observe: body.observe, result: () => (body.flush(), usage), relayedChars: jsonCharsOf };
}
