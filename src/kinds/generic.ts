import { FORMAT_NAMES } from "../formats/names.js";
import type { Kind } from "./types.js";

/**
 * Any other server, or a remote gateway you point at: SPEC 10's upstream, exactly as before kinds existed. Every
 * default is section 10's (every format of the registry, the `anthropic` and `gemini` segments, a keychain key) and no quirk
 * applies: betas and body fields go as they came, replayed reasoning keeps the field its replies used, effort goes
 * as `reasoning_effort` only when the entry says `"reasoning": "effort"`. A probe may POST an empty body to find which
 * formats answer (nothing generates from `{}`), but never recognises it as anything.
 */
export const generic: Kind = {
  name: "generic",
  title: "generic",
  defaults: {
    url: undefined,
    formats: FORMAT_NAMES,
    messagesSegment: "anthropic",
    geminiSegment: "gemini",
    key: "keychain",
    keyHeader: undefined,
    reasoning: undefined,
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "chat", contextField: undefined },
  local: false,
  probe: { mayGenerate: true, recognise: undefined },
  quirks: {
    systemFirst: false,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "as-seen",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_tokens",
    betas: "all",
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: true,
  },
};
