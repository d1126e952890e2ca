import type { FamilyName, Format } from "../formats/names.js";
import type { KindQuirks } from "../translate/server-quirks.js";

export type * from "../translate/server-quirks.js";

/**
 * What one kind of server is (SPEC 11, Kinds): the defaults an `upstreams` entry of that kind starts from, how a
 * probe recognises it, and its quirks as data. Every kind has exactly this surface, so two kinds compare line by
 * line (LiteLLM's one-class-per-provider model). Its quirks are data (`translate/server-quirks.ts`): the hooks that
 * change a format's bodies for them live in that format's folder (`formats/chat/hub-quirks.ts`,
 * `formats/messages/beta-policy.ts`) and read a kind's data and nothing else, so no quirk of one kind reaches another.
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
