import { callsAnswered, chatFunctions, contextLength, emptyAssistant, functionNames, knownFields, patternsIn, schemaPatterns, schemasIn, toolAfterCall, toolCount } from "./chat-rules.js";
import { type Json, type Refusal, type Rule, type StrictKind } from "./core.js";
import { hasLookaround, pythonReError, pythonRepr } from "./regex-dialects.js";

/**
 * OpenAI's Chat Completions API (`kind: "openai"`), as its strict fake plays it. Every refusal is OpenAI's envelope
 * `{"error": {"message", "type": "invalid_request_error", "param", "code"}}` with status 400, worded as the issues
 * named beside each rule quote it.
 */

const refusal = (message: string, param: string | null = null, code: string | null = null): Refusal => ({ message, param, code });

/** OpenAI writes a body path as `messages.[3].role` in the pairing errors and `tools[0].function.name` elsewhere. */
const dotted = (index: number, field: string) => `messages.[${index}].${field}`;

/** Python's repr of the tuple of keys from the schema root, as OpenAI's strict-schema errors print `context`. */
function pythonTuple(path: readonly (string | number)[]): string {
  const items = path.map((key) => (typeof key === "number" ? String(key) : pythonRepr(key)));
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
}

/** A pattern's place as the structured-outputs validator writes it: `$.properties.email.pattern`. */
const jsonPath = (path: readonly (string | number)[]) => `$${path.map((key) => (typeof key === "number" ? `[${key}]` : `.${key}`)).join("")}`;

/** Chat Completions' body fields (platform.openai.com/docs/api-reference/chat/create). */
const CHAT_FIELDS = new Set([
  "messages", "model", "audio", "frequency_penalty", "function_call", "functions", "logit_bias", "logprobs", "max_completion_tokens", "max_tokens",
  "metadata", "modalities", "n", "parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "prompt_cache_retention", "reasoning_effort",
  "response_format", "safety_identifier", "seed", "service_tier", "stop", "store", "stream", "stream_options", "temperature", "tool_choice", "tools",
  "top_logprobs", "top_p", "user", "verbosity", "web_search_options",
]);

/** Reasoning models: the o-series and gpt-5 (their 400 to `max_tokens`). */
const REASONING_MODEL = /^(o\d|gpt-5)/;

/**
 * OpenAI's regex rule, the one the suite holds to (docs/strict-fakes.md, "OpenAI's regex rule"), in two checks as the
 * API answers them: a `pattern` Python's `re` cannot compile is "not a 'regex'" (its meta-schema check), and then a
 * `pattern` with lookaround is "regex lookaround is not supported", strict function or not.
 */
const openaiRefusesPattern = (pattern: string): boolean => pythonReError(pattern) !== undefined || hasLookaround(pattern);

/** The first pattern of a function's `parameters` that OpenAI refuses, or undefined: what tests ask of a schema. */
export const openaiRefusedPattern = (parameters: unknown): string | undefined => patternsIn(parameters).find(({ pattern }) => openaiRefusesPattern(pattern))?.pattern;

/** Keywords a strict schema may not hold, each shown refused: instructor#1074, notion-mcp-server#117, json-render#180. */
const STRICT_REFUSED_KEYWORDS = new Set(["default", "allOf", "propertyNames"]);

/** `strict: true` functions: no keyword it does not take, every object closed and every property required (structured outputs' rules). */
function strictSchemaRule(): Rule {
  return {
    rule: "a strict function whose schema holds a keyword strict mode refuses, or leaves an object open or a property optional",
    source:
      "platform.openai.com/docs/guides/structured-outputs (supported schemas: additionalProperties false and all fields required on every object); " +
      "wording: lastmile-ai/openai-agents-mcp#2 (additionalProperties, with `context` as a Python tuple), agentscope-ai/agentscope-java#2548 and sherifkozman/the-llm-council#9 (required), " +
      "567-labs/instructor#1074 (`'default' is not permitted`, param `tools[0].function.parameters` on Chat Completions), makenotion/notion-mcp-server#117 (`allOf`), vercel-labs/json-render#180 (`propertyNames`)",
    check: (body) => {
      for (const [i, declared] of chatFunctions(body).entries()) {
        if (!declared.strict) continue;
        const { name } = declared;
        const invalid = (text: string) => refusal(`Invalid schema for function '${name}': ${text}`, `tools[${i}].function.parameters`, "invalid_function_parameters");
        for (const { schema, path } of schemasIn(declared.parameters)) {
          const context = `In context=${pythonTuple(path)}`;
          const refused = Object.keys(schema).find((keyword) => STRICT_REFUSED_KEYWORDS.has(keyword));
          if (refused !== undefined) return invalid(`${context}, '${refused}' is not permitted.`);
          if (schema.type !== "object" && !("properties" in schema)) continue;
          if (schema.additionalProperties !== false) return invalid(`${context}, 'additionalProperties' is required to be supplied and to be false.`);
          const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
          const missing = Object.keys((schema.properties as Json | undefined) ?? {}).find((key) => !required.includes(key));
          if (missing !== undefined) return invalid(`${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`);
        }
      }
      return undefined;
    },
  };
}

/** OpenAI's overflow wording (test/fixtures/context-overflow-errors.json, case `openai`). */
export const openaiOverflow = (prompt: number, window: number): Refusal =>
  refusal(`This model's maximum context length is ${window} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`, "messages", "context_length_exceeded");

/**
 * What OpenAI refuses in the conversation and its tools, by name: OpenRouter passes these on to OpenAI's models (its
 * fake refuses them all, in its own envelope), and the generic chat fake takes those every chat server shares.
 */
export const OPENAI_CONVERSATION = {
  toolCount: toolCount(128, "vishalmysore/Tools4AI#16 (message, param `tools`, code `array_above_max_length`); musistudio/claude-code-router#686 (129 tools)", (count) =>
    refusal(`Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${count} instead.`, "tools", "array_above_max_length"),
  ),
  functionNames: functionNames("brekkylab/ailoy#109 and run-llama/llama_index#16093 (pattern: param, code `invalid_value`); mcp-use/mcp-use#90 (the same for `messages[9].tool_calls[0].function.name`); nanbingxyz/5ire#33 (the `string too long` wording of OpenAI's length checks)", (where, name) =>
    name.length > 64
      ? refusal(`Invalid '${where}': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`, where, "string_above_max_length")
      : refusal(`Invalid '${where}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, where, "invalid_value"),
  ),
  toolAfterCall: toolAfterCall("smarter-sh/smarter#264, miurla/morphic#136 (message, param `messages.[i].role`, code null)", (index) =>
    refusal("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", dotted(index, "role")),
  ),
  callsAnswered: callsAnswered("router-for-me/CLIProxyAPI#2798 (message, param `messages.[6].role`, code null), BerriAI/litellm#10083", (index, ids) =>
    refusal(`An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(", ")}`, dotted(index, "role")),
  ),
  emptyAssistant: emptyAssistant(
    "run-llama/llama_index#17921 (message, param `messages.[24].content`); vercel/ai#14950 (verified live: `content: \"\"` is accepted, `null` without tool_calls is not)",
    (content) => content === null || content === undefined,
    (index) => refusal("Invalid value for 'content': expected a string, got null.", dotted(index, "content")),
  ),
  schemaPatterns: schemaPatterns(
    "Alishahryar1/free-claude-code#1730 (Claude Code's Artifact pattern: message, param, code `invalid_function_parameters`); pleaseai/shunt#488 (the validator is Python's `re`, the pattern quoted by Python's repr)",
    (pattern) => pythonReError(pattern) === undefined,
    (i, name, pattern) => refusal(`Invalid schema for function '${name}': ${pythonRepr(pattern)} is not a 'regex'.`, `tools[${i}].function.parameters`, "invalid_function_parameters"),
  ),
  strictSchemas: strictSchemaRule(),
  lookaround: {
    rule: "a schema pattern with lookaround, in any function",
    source:
      "decolua/9router#1556 and existential-birds/daydream#304 (strict functions: message, param `tools`, code `invalid_json_schema`); " +
      "nicobailon/pi-interactive-shell#69 (a `strict: false` function refused: pi sends `strict: false`, badlogic/pi-mono packages/ai/src/providers/openai-responses-shared.ts `convertResponsesTools`); " +
      "anomalyco/opencode#32073, tombii/better-ccflare#357, pleaseai/shunt#558",
    check: (body) => {
      for (const declared of chatFunctions(body)) {
        const found = patternsIn(declared.parameters).find(({ pattern }) => hasLookaround(pattern));
        if (found) return refusal(`Invalid JSON schema: regex lookaround is not supported. Found at ${jsonPath(found.path)}.`, "tools", "invalid_json_schema");
      }
      return undefined;
    },
  },
} satisfies Record<string, Rule>;

export const OPENAI_CONVERSATION_RULES: readonly Rule[] = Object.values(OPENAI_CONVERSATION);

export const OPENAI_RULES: readonly Rule[] = [
  knownFields(CHAT_FIELDS, "issues quoting the 400: nashsu/llm_wiki#336 (`thinking`), xlinx/sd-webui-decadetw-auto-prompt-llm#29 (`top_k`)", (field) =>
    refusal(`Unrecognized request argument supplied: ${field}`),
  ),
  {
    rule: "`max_tokens` to a reasoning model (o-series, gpt-5)",
    source: "platform.openai.com/docs/api-reference/chat/create (max_tokens \"is not compatible with o-series models\"); wording: griptape-ai/ComfyUI-Griptape#312",
    check: (body) =>
      REASONING_MODEL.test(String(body.model)) && body.max_tokens !== undefined
        ? refusal("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
        : undefined,
  },
  ...OPENAI_CONVERSATION_RULES,
  contextLength("test/fixtures/context-overflow-errors.json (case `openai`)", (prompt, _completion, window) => (prompt > window ? openaiOverflow(prompt, window) : undefined)),
];

export const openaiKind: StrictKind = {
  name: "openai",
  format: "chat",
  models: {
    object: "list",
    data: [
      { id: "gpt-5.4", object: "model", created: 1767000000, owned_by: "system" },
      { id: "gpt-4.1", object: "model", created: 1744000000, owned_by: "system" },
    ],
  },
  contextWindow: 128000,
  envelope: (r) => ({ error: { message: r.message, type: r.type ?? "invalid_request_error", param: r.param ?? null, code: r.code ?? null } }),
  rules: OPENAI_RULES,
};
