import { cacheCounts, chunkChars, replyChars } from "../../translate/hub-usage.js";
import { count } from "../fields.js";
import type { UsageReader } from "../types.js";

type UsageFields = {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
};

/**
 * Usage in OpenAI's two formats, and in what servers copying them send: Chat Completions report `usage` at the top
 * (the last chunk when streaming) with `prompt_tokens`, the Responses API at the top (non-stream) or under
 * `response` (`response.completed`) with `input_tokens`. One reader takes either: servers that copy OpenAI mix the
 * two, and the family's other paths (embeddings, a stored response) use both. Cache counts under every name servers
 * give them (`cacheCounts`), as a translated reply tells its client.
 */
export const openAiUsage: UsageReader = {
  read(value, into) {
    const holder = value as { usage?: UsageFields | null; response?: { usage?: UsageFields | null } };
    const usage = holder.usage ?? holder.response?.usage;
    if (!usage || typeof usage !== "object") return;
    into.inputTokens = count(usage.prompt_tokens ?? usage.input_tokens) ?? into.inputTokens;
    into.outputTokens = count(usage.completion_tokens ?? usage.output_tokens) ?? into.outputTokens;
    const cache = cacheCounts(usage);
    into.cacheReadTokens = cache.read ?? into.cacheReadTokens;
    into.cacheWriteTokens = cache.write ?? into.cacheWriteTokens;
  },
  marker: '"usage"',
  cacheInInput: true,
};

/**
 * Chat Completions' usage: OpenAI's reader, and a stream that reports none unless its request says
 * `stream_options.include_usage` (curl, many SDK scripts, `gateway chat`): its first choice's text, reasoning and tool
 * calls are what the gateway counts instead.
 */
export const chatUsage: UsageReader = {
  ...openAiUsage,
  unreported: {
    // Bytes without the word ask for no usage; only a body that names it is parsed to see whether it asks.
    streamWithout: (bytes, body) => bytes === undefined || bytes.indexOf("include_usage") < 0 || (body()?.stream_options as { include_usage?: unknown } | undefined)?.include_usage !== true,
    relayedChars: chunkChars,
  },
  replyChars,
};
