import { anthropic } from "./anthropic.js";
import { deepseek } from "./deepseek.js";
import { gemini } from "./gemini.js";
import { generic } from "./generic.js";
import { litellm } from "./litellm.js";
import { llamacpp } from "./llamacpp.js";
import { lmstudio } from "./lmstudio.js";
import { ollama } from "./ollama.js";
import { openai } from "./openai.js";
import { openrouter } from "./openrouter.js";
import type { Kind, KindName } from "./types.js";
import { vllm } from "./vllm.js";

export type * from "./types.js";
export { KIND_NAMES } from "./types.js";

/**
 * Every kind by name (SPEC 11, Kinds). The config reads this registry on every command, so it holds data only: the
 * hooks that read it (`formats/chat/hub-quirks.ts`, `formats/messages/beta-policy.ts`) load where a request is
 * translated or forwarded.
 */
export const KINDS: Readonly<Record<KindName, Kind>> = { openai, anthropic, gemini, openrouter, deepseek, litellm, ollama, vllm, llamacpp, lmstudio, generic };

/** The kind of a name the config validated. */
export const kindNamed = (name: KindName): Kind => KINDS[name];

/**
 * The kinds a probe recognises from a bare URL, most specific reply first: LiteLLM's liveliness text cannot be
 * anything else, while vLLM's `/version` (a bare `{"version": ...}`) is the shape other servers could share.
 */
export const RECOGNISABLE: readonly Kind[] = [litellm, ollama, llamacpp, lmstudio, vllm];
