import type { ReasoningField } from "./hub.js";

/**
 * What a server of some kind needs changed in what is sent to it, as data (SPEC 11, Kinds): each kind
 * (`kinds/<kind>.ts`) fills a `KindQuirks` in, the translators carry it (`TranslateContext.quirks`), and the hooks
 * that apply it live in the folder of the format whose bodies they change (`formats/chat/hub-quirks.ts`,
 * `formats/messages/beta-policy.ts`); the upstream client reads the refusals. Below both `kinds/` and `formats/`, so
 * that neither imports the other to agree on it.
 */

/** Regex syntax of a tool schema's `pattern` that some servers' validators cannot compile (`formats/chat/pattern-syntax.ts` finds it). */
export type PatternSyntax =
  /** `(?=`, `(?!`, `(?<=`, `(?<!`. */
  | "lookaround"
  /** `(?>...)`. */
  | "atomic-group"
  /** `a*+`, `a++`, `a?+`, `a{2}+`. */
  | "possessive-quantifier"
  /** `\p{L}`, `\P{Cc}`, `\pL`. */
  | "unicode-property"
  /** `\u{1F600}`. */
  | "code-point-escape"
  /** `\u0000`. */
  | "unicode-escape";

/** How a requested reasoning effort reaches its chat endpoint. */
export type EffortDialect =
  /** Chat's own `reasoning_effort` (OpenAI, Ollama, llama.cpp, LM Studio, LiteLLM). */
  | "reasoning_effort"
  /** OpenRouter's `reasoning: {effort}`. */
  | "reasoning_object"
  /** DeepSeek's switch, `thinking: {type: "enabled"}` (it takes no effort level). */
  | "thinking_switch"
  /** vLLM: `reasoning_effort`, and `chat_template_kwargs` that turn thinking on in templates that default it off. */
  | "reasoning_effort_and_template_switch";

/** Where replayed reasoning goes on an assistant message sent back to it. */
export type ReasoningReplay = ReasoningField | "none" | "as-seen";

/** A kind's quirks, as data; each applies only to upstreams of that kind. */
export interface KindQuirks {
  /** It takes one system message, first: later ones go into user turns, marked as system text. */
  readonly systemFirst: boolean;
  /** JSON-schema keywords its tool parameters refuse: removed, at any depth. */
  readonly refusedSchemaKeywords: readonly string[];
  /** Regex syntax its validator cannot compile: a `pattern` using any goes into its property's description instead. */
  readonly refusedPatternSyntax: readonly PatternSyntax[];
  /** The string `format`s it takes (`any`: every one); another goes into its property's description instead. */
  readonly schemaFormats: "any" | readonly string[];
  /**
   * It takes a boolean where a schema belongs (`"items": true`, a property `false`); false: `true` becomes `{}` and
   * `false` becomes `{"not": {}}`, which mean the same.
   */
  readonly booleanSchemas: boolean;
  /**
   * The `tool_choice` forms its chat endpoint reads. `named`: chat's own (a string, or a named function); `strings`:
   * only `auto`, `none` and `required`, so a named tool goes as `required` with only that tool offered.
   */
  readonly toolChoice: "named" | "strings";
  /**
   * Its answers that are the request's own fault although their status is 5xx (SPEC 11, Refusals that do not change
   * with a retry): not retried, no fallback, and the client gets 400 with the upstream's message (`steady-refusal.ts`).
   */
  readonly steadyRefusals: readonly SteadyRefusal[];
  /** The assistant field it reads reasoning from (`none`: it reads none; `as-seen`: the field its replies used). */
  readonly reasoningField: ReasoningReplay;
  readonly effortDialect: EffortDialect;
  /** The chat field that carries the output limit. */
  readonly maxTokensField: "max_tokens" | "max_completion_tokens";
  /** The `anthropic-beta` values its messages endpoint takes; `all`: the request as it came (SPEC 5). */
  readonly betas: "all" | readonly string[];
  /** Its chat endpoint takes `prompt_cache_key` (SPEC 11: OpenAI and OpenRouter). */
  readonly promptCacheKey: boolean;
  /** Its chat endpoint takes `service_tier: "priority"`, which Claude Code's `speed: "fast"` becomes (SPEC 12). */
  readonly priorityTier: boolean;
  /** Its key goes as `Authorization: Bearer` in every format, messages included, not as `x-api-key`. */
  readonly bearerInEveryFormat: boolean;
  /**
   * Claude Code's per-turn billing line (`x-anthropic-billing-header: ...; cch=<hash>;`) stays in a messages
   * request's system prompt: Anthropic reads it (and a `generic` gateway may pass it on to Anthropic); to any other
   * server it is text whose hash changes every turn, which defeats its prompt cache.
   */
  readonly billingHeader: boolean;
}

/** An upstream error that a retry would only repeat: its status, and a phrase its error message holds. */
export interface SteadyRefusal {
  readonly status: number;
  readonly says: string;
}
