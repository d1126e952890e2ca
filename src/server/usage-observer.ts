import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceParser } from "eventsource-parser";
import { parseJsonObject } from "../parse-json.js";

/** Token counts as the upstream reported them. */
export interface Usage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
}

/** Largest non-stream body kept for reading its usage; bigger ones are not observed. */
const MAX_OBSERVED_BODY = 1024 * 1024;

type UsageFields = {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  input_tokens_details?: { cached_tokens?: unknown } | null;
};

const count = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/**
 * Reads the usage of any shape both families (and the Responses API) report: `usage` at the top (chat,
 * messages, final chat chunk, `message_delta`), under `message` (`message_start`) or under `response`
 * (`response.completed`). Later reports override earlier ones, as `message_delta` does `message_start`.
 */
function mergeUsage(into: Usage, value: unknown): void {
  const holder = value as { usage?: UsageFields; message?: { usage?: UsageFields }; response?: { usage?: UsageFields } } | null;
  const usage = holder?.usage ?? holder?.message?.usage ?? holder?.response?.usage;
  if (!usage || typeof usage !== "object") return;
  into.inputTokens = count(usage.prompt_tokens ?? usage.input_tokens) ?? into.inputTokens;
  into.outputTokens = count(usage.completion_tokens ?? usage.output_tokens) ?? into.outputTokens;
  const cacheRead = usage.cache_read_input_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? usage.input_tokens_details?.cached_tokens;
  into.cacheReadTokens = count(cacheRead) ?? into.cacheReadTokens;
  into.cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? into.cacheWriteTokens;
}

/** Watches a reply go by and reports its usage at the end, without holding on to a stream. */
export interface UsageObserver {
  observe(chunk: Buffer): void;
  result(): Usage;
}

/**
 * Event streams are parsed event by event and only events that mention `usage` are decoded as JSON; JSON bodies
 * are kept (by reference, up to 1 MiB) and read once at the end. Compressed bodies are not observed.
 */
export function createUsageObserver(contentType: string | undefined, contentEncoding: string | undefined): UsageObserver {
  const usage: Usage = { inputTokens: undefined, outputTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined };
  if (contentEncoding && contentEncoding !== "identity") return { observe: () => {}, result: () => usage };
  if (contentType?.startsWith("text/event-stream")) {
    const decoder = new StringDecoder("utf8");
    const parser: EventSourceParser = createParser({
      onEvent: (event) => {
        if (event.data.includes('"usage"')) mergeUsage(usage, parseJsonObject(event.data));
      },
    });
    return { observe: (chunk) => parser.feed(decoder.write(chunk)), result: () => usage };
  }
  if (!contentType?.includes("json")) return { observe: () => {}, result: () => usage };
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    observe(chunk) {
      size += chunk.length;
      if (size <= MAX_OBSERVED_BODY) chunks.push(chunk);
    },
    result() {
      if (size <= MAX_OBSERVED_BODY && chunks.length > 0) mergeUsage(usage, parseJsonObject(Buffer.concat(chunks).toString("utf8")));
      chunks.length = 0;
      return usage;
    },
  };
}
