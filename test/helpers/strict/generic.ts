import type { StrictKind } from "./core.js";
import { OPENAI_CONVERSATION, openaiKind } from "./openai.js";

const { functionNames, toolAfterCall, callsAnswered, emptyAssistant } = OPENAI_CONVERSATION;

/**
 * A chat upstream of no named kind (`generic`), as the translated tests meet it: held to what every Chat Completions
 * server refuses (OpenAI's rules on function names and on calls and their results, which DeepSeek, Alibaba's and
 * Moonshot's servers enforce in the same words: FoundationAgents/OpenManus#23, QwenLM/qwen-code#606,
 * MoonshotAI/kimi-cli#2405; and an empty assistant message), in OpenAI's envelope. What only one server refuses
 * (OpenAI's Python-`re` patterns, its field list, its tool limit) is its own kind's fake's.
 */
export const genericKind: StrictKind = { ...openaiKind, name: "generic", rules: [functionNames, toolAfterCall, callsAnswered, emptyAssistant] };
