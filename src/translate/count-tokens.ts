import { isRecord } from "../parse-json.js";
import type { HubRequest } from "./hub.js";

/**
 * A local estimate of a translated request's input tokens, for `count_tokens` and Gemini's `:countTokens` on an
 * upstream that has neither (SPEC 10 rule 6). The text that reaches the model (system, messages, tool calls
 * and results, reasoning sent back, tool names, descriptions and schemas) is counted with o200k_base, the
 * encoding nearest in vocabulary size to the open models behind chat servers (Qwen, DeepSeek, GLM: 150k-200k),
 * plus fixed amounts for what a chat template adds around it. Each fixed amount is documented where it is set;
 * the test measures the result against counts the providers reported.
 */

/** A chat template wraps each message in a few tokens: `<|im_start|>role\n` ... `<|im_end|>\n` (OpenAI counts 3, ChatML 5). */
const PER_MESSAGE = 4;
/** The opening of the reply the model is asked for (`<|im_start|>assistant\n`), as OpenAI counts it. */
const PER_REQUEST = 3;
/** A tool definition's place in the template's tool list (a line, separators), beyond its JSON. */
const PER_TOOL = 8;
/**
 * A tool list's instructions: Qwen's template wraps the list in "# Tools ... <tools></tools> ... <tool_call>"
 * text of 87 o200k tokens, and Llama's, GLM's and DeepSeek's add text of the same order.
 */
const TOOL_LIST = 90;
/**
 * An image, whatever its bytes (a base64 data URL's length says nothing of its tokens): Anthropic's own formula
 * (width x height / 750) gives about 1,600 for the largest image it takes unresized, and OpenAI's high detail
 * stays under that; a fixed figure at the top of the range keeps a screenshot from being undercounted.
 */
const PER_IMAGE = 1600;

interface Tally {
  texts: string[];
  messages: number;
  tools: number;
  images: number;
}

/**
 * The texts and counts of a request as the hub reads it. A chat client's body is its hub as it came, unchecked (the
 * upstream judges it): a message, a part or a tool call of another shape is left out of the count, never a reason for
 * the estimate, and so the request's record or its route, to fail.
 */
function tally(request: HubRequest): Tally {
  const found: Tally = { texts: [], messages: 0, tools: 0, images: 0 };
  const add = (value: unknown) => {
    if (typeof value === "string" && value) found.texts.push(value);
  };
  const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);
  for (const message of records(request.messages)) {
    found.messages++;
    if (Array.isArray(message.content)) {
      for (const part of records(message.content)) {
        if (part.type === "image_url") found.images++;
        else add(part.text);
      }
    } else add(message.content);
    if (message.role !== "assistant") continue;
    add(message.reasoning_content);
    add(message.reasoning);
    for (const call of records(message.tool_calls)) {
      const called = isRecord(call.function) ? call.function : {};
      add(called.name);
      add(called.arguments);
    }
  }
  for (const tool of Array.isArray(request.tools) ? request.tools : []) {
    found.tools++;
    // Templates render the whole definition as JSON (`{"type": "function", "function": {...}}`), keys included.
    add(JSON.stringify(tool));
  }
  return found;
}

const fixedTokens = (found: Tally): number =>
  PER_REQUEST + found.messages * PER_MESSAGE + (found.tools ? TOOL_LIST + found.tools * PER_TOOL : 0) + found.images * PER_IMAGE;
const characterFloor = (found: Tally): number => Math.ceil(found.texts.reduce((sum, text) => sum + text.length, 0) / 4);

/**
 * A quick estimate without the tokenizer: the text's characters divided by 4 plus the fixed amounts. For
 * `message_start`'s `input_tokens`, which must leave before the upstream says anything and must not wait for
 * the tokenizer to load.
 */
export function estimateHubTokens(request: HubRequest): number {
  const found = tally(request);
  return fixedTokens(found) + characterFloor(found);
}

/**
 * Bounds of what `countHubTokens` will say, without the tokenizer: never below the characters divided by 4 (its
 * floor), never above the fixed amounts plus one token per UTF-8 byte (no token is shorter than a byte). A route that
 * asks for at least N tokens is answered from these alone unless N falls between them.
 */
export function hubTokenBounds(request: HubRequest): { low: number; high: number } {
  const found = tally(request);
  const bytes = found.texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  return { low: characterFloor(found), high: Math.max(fixedTokens(found) + bytes, characterFloor(found)) };
}

/** Special-token look-alikes in user text (`<|endoftext|>`) are counted as text, not refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Longest piece handed to the tokenizer at once. */
const PIECE = 1000;

/**
 * A text in pieces of at most `PIECE` characters, cut before a space where there is one in the second half
 * (o200k starts words with their space, so such a cut changes no token). BPE is quadratic in the length of one
 * run without spaces: 64,000 equal letters took 1.3 s whole, and 400,000 took 70 s; in pieces, 0.4 s.
 */
function* piecesOf(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > PIECE) {
    const space = text.slice(start, start + PIECE).lastIndexOf(" ");
    const end = space > PIECE / 2 ? start + space : start + PIECE;
    yield text.slice(start, end);
    start = end;
  }
  yield text.slice(start);
}

/**
 * The estimate `count_tokens` answers with: o200k_base tokens of every text plus the fixed amounts, never below
 * the characters divided by 4. The tokenizer (about 120 ms and 50 MB) is loaded on the first call only.
 */
export async function countHubTokens(request: HubRequest): Promise<number> {
  const { countTokens } = await import("./o200k-tokenizer.js");
  const found = tally(request);
  let tokens = 0;
  for (const text of found.texts) for (const piece of piecesOf(text)) tokens += countTokens(piece, AS_TEXT);
  return Math.max(fixedTokens(found) + tokens, characterFloor(found));
}
