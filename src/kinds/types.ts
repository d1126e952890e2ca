import type { FamilyName, Format } from "../formats/names.js";
import type { ReasoningField } from "../translate/hub.js";
import type { PatternSyntax } from "../formats/chat/pattern-syntax.js";

/**
 * What one kind of server is (SPEC 11, Kinds): the defaults an `upstreams` entry of that kind starts from, how a
 * probe recognises it, and its quirks as data. Every kind has exactly this surface, so two kinds compare line by
 * line (LiteLLM's one-class-per-provider model); the hooks in `hub-quirks.ts` and `beta-policy.ts` read a kind's
 * data and nothing else, so no quirk of one kind reaches another.
 */

/** The kinds, in the order the README and `gateway add --help` list them. `generic` is section 10's upstream. */
export const KIND_NAMES = ["openai", "anthropic", "gemini", "openrouter", "deepseek", "litellm", "ollama", "vllm", "llamacpp", "lmstudio", "generic"] as const;
export type KindName = (typeof KIND_NAMES)[number];

/** What every field of an entry falls back to when the entry leaves it out (the entry's own fields always win). */
export interface KindDefaults {
  /** Its usual base URL; undefined when it has none (LiteLLM, generic): the entry must give one. */
  readonly url: string | undefined;
  /** The formats it serves natively, in the order SPEC 10 lists them. */
  readonly formats: readonly Format[];
  /** `""`: messages live at `{url}/v1/messages`. */
  readonly messagesSegment: string;
  /** `""`: Gemini lives at `{url}/v1beta/...`. */
  readonly geminiSegment: string;
  /** `keychain` for servers that bill, `none` for local ones. */
  readonly key: "keychain" | "none";
  /** The header that carries the bare key when it is not the format's usual one. */
  readonly keyHeader: string | undefined;
  /** `effort`: a requested reasoning effort is sent, in the kind's dialect (`KindQuirks.effortDialect`). */
  readonly reasoning: "effort" | undefined;
  /** A cap on the output-token limit of translated requests, where the server refuses more. */
  readonly maxOutputTokens: number | undefined;
  /** Retries of its own; undefined: the top-level `retries`. A gateway that retries itself gets 0 (they multiply). */
  readonly retries: number | undefined;
}

/** Its model list: the family whose list shape it answers in, and the per-model field that holds the context window. */
export interface KindModelList {
  readonly family: FamilyName;
  /** vLLM's `max_model_len`, OpenRouter's `context_length`, llama.cpp's `meta.n_ctx` (a dotted path): where its list gives it, translated requests to that model are capped to what the window leaves (`upstream/context-windows.ts`). */
  readonly contextField: string | undefined;
}

/** How a probe may treat the server (SPEC 11, Adding an upstream). */
export interface KindProbe {
  /**
   * Whether a probe may POST to its generation endpoints: it sends an empty body (`{}`: no model, no messages), which
   * generates nothing anywhere, but a server that bills by token is never sent even that.
   */
  readonly mayGenerate: boolean;
  /** How a probe tells it apart from a bare URL, on an endpoint that costs nothing; undefined when it cannot. */
  readonly recognise: Recognition | undefined;
}

/** A GET that only this kind of server answers this way. */
export interface Recognition {
  /** Path under the base URL: `/api/version`, `/props`. */
  readonly path: string;
  /** The reply's JSON body (or undefined when it was not JSON) answers as this kind does; a 2xx status is checked apart. */
  readonly matches: (body: unknown) => boolean;
  /** What the reply says of the server, for `gateway add`'s line (`version 0.12.3`); empty when nothing useful. */
  readonly describe: (body: unknown) => string;
}

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

/** One kind of server. */
export interface Kind {
  readonly name: KindName;
  /** As people write it: `Ollama`, `llama.cpp`. */
  readonly title: string;
  readonly defaults: KindDefaults;
  readonly modelList: KindModelList;
  /** It costs nothing: budgets never stop it (SPEC 11, Budgets), unless config `prices` names its models. */
  readonly local: boolean;
  readonly probe: KindProbe;
  readonly quirks: KindQuirks;
}
