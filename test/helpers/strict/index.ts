import type { StrictKind } from "./core.js";
import { deepseekAnthropicKind, deepseekKind } from "./deepseek.js";
import { genericKind } from "./generic.js";
import { lmstudioKind, ollamaKind, vllmKind } from "./local-servers.js";
import { openaiKind } from "./openai.js";
import { openrouterKind } from "./openrouter.js";

/**
 * The strict fakes, one per kind of server the suite cannot run (LiteLLM's is the `team` work's, llama.cpp runs for
 * real): import a kind from here and start it with `startStrictFake`.
 */
export const STRICT_KINDS = {
  generic: genericKind,
  openai: openaiKind,
  deepseek: deepseekKind,
  "deepseek-anthropic": deepseekAnthropicKind,
  openrouter: openrouterKind,
  vllm: vllmKind,
  ollama: ollamaKind,
  lmstudio: lmstudioKind,
} as const satisfies Record<string, StrictKind>;

export { firstRefusal, refusalOf, startStrictFake, strictScript, type StrictKind } from "./core.js";
