/**
 * An upstream's error that says the prompt does not fit the model's context, read from the words each server uses,
 * with the two numbers where it says both: what Claude Code (`prompt is too long: N tokens > M maximum`) and Codex
 * (`context_length_exceeded`) recover from by compacting (SPEC 11, What today's tools need).
 */
export interface ContextOverflow {
  /** The tokens the request needed, where the upstream said. */
  tokens: number | undefined;
  /** The model's context, where the upstream said. */
  maximum: number | undefined;
  /** The part of `tokens` asked for as output (`max_tokens`), where the upstream said it apart. */
  output?: number | undefined;
}

/** A wording that names both numbers: its pattern, and which group holds each. */
interface Wording {
  readonly pattern: RegExp;
  readonly tokens: number;
  readonly maximum: number;
}

const WORDINGS: readonly Wording[] = [
  // Anthropic's own (what a messages upstream says, and what Claude Code parses).
  { pattern: /prompt is too long: (\d+) tokens > (\d+) maximum/i, tokens: 1, maximum: 2 },
  // OpenAI: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens."
  { pattern: /maximum context length is (\d+) tokens\. However, your messages resulted in (\d+) tokens/i, tokens: 2, maximum: 1 },
  // vLLM since its renderer checks the length (vllm/renderers/params.py `_token_len_check`): "... However, you
  // requested 1000 output tokens and your prompt contains at least 9000 input tokens, for a total of at least 10000 tokens."
  { pattern: /maximum context length is (\d+) tokens\. However, you requested \d+ output tokens and your prompt contains (?:at least )?\d+ input tokens, for a total of (?:at least )?(\d+) tokens/i, tokens: 2, maximum: 1 },
  // vLLM's serving layer (vllm/entrypoints/openai/serving_engine.py): "This model's maximum context length is 4096
  // tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages."
  { pattern: /maximum context length is (\d+) tokens\.? However, your request has (\d+) input tokens/i, tokens: 2, maximum: 1 },
  // Older vLLM ("However, you requested 40000 tokens (39000 in the messages, 1000 in the completion)") and
  // OpenRouter ("This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens").
  { pattern: /maximum context length is (\d+) tokens\. However, you requested (?:about )?(\d+) tokens/i, tokens: 2, maximum: 1 },
  // vLLM's engine (vllm/v1/engine/input_processor.py): "The decoder prompt (length 5000) is longer than the maximum model length of 4096."
  { pattern: /prompt \(length (\d+)\) is longer than the maximum model length of (\d+)/i, tokens: 1, maximum: 2 },
  // llama.cpp (tools/server/server-context.cpp, ERROR_TYPE_EXCEED_CONTEXT_SIZE): "request (9000 tokens) exceeds the
  // available context size (8192 tokens), try increasing it".
  { pattern: /request \((\d+) tokens\) exceeds (?:the available )?context size \((\d+) tokens\)/i, tokens: 1, maximum: 2 },
  // LM Studio: "Trying to keep the first 6269 tokens when context the overflows. However, the model is loaded with
  // context length of only 4096 tokens, which is not enough."
  { pattern: /keep the first (\d+) tokens when context the overflows\. However, the model is loaded with context length of only (\d+) tokens/i, tokens: 1, maximum: 2 },
];

/**
 * The output part of a total, where a server says it apart: vLLM's "you requested 4096 output tokens" and "(39000 in
 * the messages, 1000 in the completion)", OpenRouter's "(136225 of text input, 4096 in the output)".
 */
const OUTPUT = /(\d+) output tokens|(\d+) in the (?:completion|output)\b/i;

/**
 * Words that say the context overflowed without both numbers: those above, llama.cpp's older "the request exceeds the
 * available context size, try increasing it" and its error type `exceed_context_size_error`, Ollama's "prompt too
 * long; exceeded max context length by 4021 tokens" (when it refuses rather than truncates; as other clients' overflow
 * tables quote it), and the phrasings other servers use.
 */
const OVERFLOW = /context[_ ]length|maximum context|context window|context size|exceed_context_size|exceeds? (the )?(max(imum)? )?context|longer than the (model'?s context|maximum model length)|context the overflows|too many tokens|prompt (is )?too long/i;

/** Statuses that are never an overflow, whatever the words: a rate limit ("Too many tokens, please wait") or an overload. */
const NOT_OVERFLOW_STATUS: ReadonlySet<number> = new Set([429, 503, 529]);

/** Numbers a server put beside its message: llama.cpp's `n_prompt_tokens` and `n_ctx` on its error object. */
const fieldNumber = (error: Record<string, unknown> | undefined, key: string): number | undefined => {
  const value = error?.[key];
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
};

/**
 * Whether an upstream error with this status, message and code (and, where it gave one, its error object) is a
 * context overflow, and the numbers it said; undefined when it is not one.
 */
export function contextOverflowOf(status: number, message: string, code: string | null | undefined, error?: Record<string, unknown>): ContextOverflow | undefined {
  if (NOT_OVERFLOW_STATUS.has(status)) return undefined;
  for (const wording of WORDINGS) {
    const match = wording.pattern.exec(message);
    if (!match) continue;
    const output = OUTPUT.exec(message);
    return { tokens: Number(match[wording.tokens]), maximum: Number(match[wording.maximum]), output: output ? Number(output[1] ?? output[2]) : undefined };
  }
  const type = typeof error?.type === "string" ? error.type : "";
  if (code !== "context_length_exceeded" && !OVERFLOW.test(message) && !OVERFLOW.test(type)) return undefined;
  return { tokens: fieldNumber(error, "n_prompt_tokens"), maximum: fieldNumber(error, "n_ctx") };
}

/**
 * An overflow in Anthropic's own words, which Claude Code recovers from: when the prompt alone fits and only the
 * output asked for does not, "input length and `max_tokens` exceed context limit: N + K > M", on which it retries
 * with a smaller `max_tokens`; else "prompt is too long: N tokens > M maximum" (or the upstream's words after
 * `prompt is too long: ` when it did not say both numbers), on which it compacts the conversation.
 */
export function promptTooLong(overflow: ContextOverflow, message: string): string {
  const { tokens, maximum, output } = overflow;
  if (tokens !== undefined && maximum !== undefined && output !== undefined && output < tokens && tokens - output < maximum) {
    return `input length and \`max_tokens\` exceed context limit: ${tokens - output} + ${output} > ${maximum}, decrease input length or \`max_tokens\` and try again`;
  }
  if (tokens !== undefined && maximum !== undefined) return `prompt is too long: ${tokens} tokens > ${maximum} maximum`;
  return /^prompt is too long/i.test(message) ? message : `prompt is too long: ${message}`;
}
