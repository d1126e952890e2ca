import type { StrictKind } from "./core.js";
import { OPENAI_CONVERSATION_RULES, openaiKind } from "./openai.js";

/** OpenAI's rules that every Chat Completions server shares: the pairing of calls and results, function names, an empty assistant. */
const SHARED_RULES = new Set(["function names outside ^[a-zA-Z0-9_-]{1,64}$, declared or in an earlier call", "a tool message that answers no preceding tool call", "a tool call left without its tool message", "an assistant message with no content and no tool calls"]);

/**
 * A chat upstream of no named kind (`generic`), as the translated tests meet it: held to what every Chat Completions
 * server refuses (OpenAI's rules on the conversation, which DeepSeek, Alibaba's and Moonshot's servers enforce in the
 * same words: FoundationAgents/OpenManus#23, QwenLM/qwen-code#606, MoonshotAI/kimi-cli#2405), in OpenAI's envelope.
 * What only one server refuses (OpenAI's Python-`re` patterns, its field list) is its own kind's fake's.
 */
export const genericKind: StrictKind = {
  ...openaiKind,
  name: "generic",
  rules: OPENAI_CONVERSATION_RULES.filter((rule) => SHARED_RULES.has(rule.rule)),
};
