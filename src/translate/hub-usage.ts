import type { HubUsage } from "./hub.js";

/** Chat usage split the way the messages and Gemini formats count it. */
export interface UsageParts {
  /** Prompt tokens not read from or written to a cache (messages' `input_tokens`). */
  input: number;
  /** All prompt tokens (chat's `prompt_tokens`, Gemini's `promptTokenCount`). */
  prompt: number;
  cacheRead: number;
  cacheWrite: number;
  /** All output tokens, reasoning included (chat's `completion_tokens`). */
  output: number;
  /** The part of `output` spent reasoning. */
  reasoning: number;
}

const n = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/** Cache fields that chat upstreams add under names of their own. */
type CacheFields = {
  prompt_tokens_details?: { cache_write_tokens?: unknown } | null;
  prompt_cache_hit_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
};

/** A count an upstream reported: a finite number that is not negative. */
const reported = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);

/** The first count above zero among names that may all be present (a proxy adds its own beside a zero), else the first reported. */
function firstCount(...values: unknown[]): number | undefined {
  const counts = values.map(reported);
  return counts.find((value) => value !== undefined && value > 0) ?? counts.find((value) => value !== undefined);
}

/**
 * The cache counts of a chat usage object, under the names upstreams give them, undefined where it gave none: reads
 * as OpenAI's `prompt_tokens_details.cached_tokens` (the Responses API's `input_tokens_details.cached_tokens`),
 * DeepSeek's `prompt_cache_hit_tokens` (api-docs.deepseek.com/guides/kv_cache) or LiteLLM's
 * `cache_read_input_tokens`; writes as `prompt_tokens_details.cache_creation_tokens`, OpenRouter's
 * `cache_write_tokens` or LiteLLM's `cache_creation_input_tokens`. Read for every upstream, whatever its kind: a
 * `generic` entry in front of DeepSeek or OpenRouter (how such entries were written before kinds) gets these names
 * too, and no server uses them for anything else. What a client is told (`usageParts`) and what the request's record
 * says (`formats/chat/usage.ts`) both read them here.
 */
export function cacheCounts(usage: object): { read: number | undefined; write: number | undefined } {
  const raw = usage as CacheFields & { input_tokens_details?: { cached_tokens?: unknown } | null };
  const details = raw.prompt_tokens_details as (HubUsage["prompt_tokens_details"] & CacheFields["prompt_tokens_details"]) | null | undefined;
  return {
    read: firstCount(details?.cached_tokens, raw.input_tokens_details?.cached_tokens, raw.prompt_cache_hit_tokens, raw.cache_read_input_tokens),
    write: firstCount(details?.cache_creation_tokens, details?.cache_write_tokens, raw.cache_creation_input_tokens),
  };
}

/** Reads chat usage, its cache counts by `cacheCounts`. Messages' `input_tokens` excludes cached tokens (SPEC 10 rule 2). */
export function usageParts(usage: HubUsage | null | undefined): UsageParts {
  const raw = usage ?? ({} as HubUsage);
  const prompt = n(raw.prompt_tokens);
  const cache = cacheCounts(raw);
  const cacheRead = n(cache.read);
  const cacheWrite = n(cache.write);
  return {
    input: Math.max(0, prompt - cacheRead - cacheWrite),
    prompt,
    cacheRead,
    cacheWrite,
    output: n(raw.completion_tokens),
    reasoning: n(raw.completion_tokens_details?.reasoning_tokens),
  };
}

const length = (value: unknown): number => (typeof value === "string" ? value.length : 0);

type RelayedPart = { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: unknown };

/**
 * The characters a chat delta or message relays: its text, reasoning and tool calls' names and arguments. A reply
 * that reports no usage is counted with output tokens estimated from them (SPEC 11, Budgets), whichever format it is
 * relayed in: a chat stream passed through, or the hub between two formats.
 */
function relayedChars(part: RelayedPart | null | undefined): number {
  if (!part) return 0;
  let chars = length(part.content) + length(part.reasoning_content) + length(part.reasoning);
  if (Array.isArray(part.tool_calls)) for (const call of part.tool_calls as { function?: { name?: unknown; arguments?: unknown } }[]) chars += length(call?.function?.name) + length(call?.function?.arguments);
  return chars;
}

/** The first choice of a chat chunk or reply (the hub's, or a server's as it came), when it has choices. */
const firstChoice = (value: { choices?: unknown }): { delta?: RelayedPart; message?: RelayedPart } | undefined =>
  Array.isArray(value.choices) ? (value.choices[0] as { delta?: RelayedPart; message?: RelayedPart } | null | undefined) ?? undefined : undefined;

/** The characters a chat stream chunk relays (`relayedChars` of its first choice's delta). */
export const chunkChars = (chunk: { choices?: unknown }): number => relayedChars(firstChoice(chunk)?.delta);

/** The characters a whole chat reply relays (`relayedChars` of its first choice's message). */
export const replyChars = (reply: { choices?: unknown }): number => relayedChars(firstChoice(reply)?.message);
