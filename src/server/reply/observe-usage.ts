import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceParser } from "eventsource-parser";
import type { Family, Usage } from "../../families/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { includesBytes, lastEventEnd } from "./event-boundary.js";

/** Largest non-stream body kept for reading its usage; bigger ones are not observed. */
const MAX_OBSERVED_BODY = 1024 * 1024;

/** Watches a reply go by and reports its usage at the end, without holding on to a stream. */
export interface UsageObserver {
  observe(chunk: Buffer): void;
  result(): Usage;
}

const IGNORE = () => {};

/**
 * Stage 9: token usage, read the way the family reports it (`Family.readUsage`). Event streams are parsed where
 * their bytes mention usage, and only events that do are decoded as JSON; JSON bodies are kept (by reference, up
 * to 1 MiB) and read once at the end. Compressed bodies are not observed.
 */
export function createUsageObserver(family: Family, contentType: string | undefined, contentEncoding: string | undefined): UsageObserver {
  const usage: Usage = { inputTokens: undefined, outputTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined };
  const read = (text: string) => {
    const value = parseJsonObject(text);
    if (value) family.readUsage(value, usage);
  };
  if (contentEncoding && contentEncoding !== "identity") return { observe: IGNORE, result: () => usage };
  if (contentType?.startsWith("text/event-stream")) {
    const decoder = new StringDecoder("utf8");
    // Made when a chunk first needs it: many streams carry usage only in their last events.
    let parser: EventSourceParser | undefined;
    const marker = Buffer.from(family.usageMarker);
    // True while the parser holds nothing of an unfinished event: the last chunk fed ended with a blank line.
    let atBoundary = true;
    const observe = (chunk: Buffer) => {
      const endsEvent = lastEventEnd(chunk) === chunk.length;
      // Whole events without the marker cannot carry usage: the usual chunk skips the parser, its strings and its
      // garbage (about a third of the gateway's CPU per stream over the floor's, in the profile).
      if (atBoundary && endsEvent && !includesBytes(chunk, marker)) return;
      parser ??= createParser({
        onEvent: (event) => {
          if (event.data.includes(family.usageMarker)) read(event.data);
        },
      });
      parser.feed(decoder.write(chunk));
      atBoundary = endsEvent;
    };
    return { observe, result: () => usage };
  }
  if (!contentType?.includes("json")) return { observe: IGNORE, result: () => usage };
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    observe(chunk) {
      size += chunk.length;
      if (size <= MAX_OBSERVED_BODY) chunks.push(chunk);
    },
    result() {
      if (size <= MAX_OBSERVED_BODY && chunks.length > 0) read(Buffer.concat(chunks).toString("utf8"));
      chunks.length = 0;
      return usage;
    },
  };
}
