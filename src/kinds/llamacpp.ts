import { isRecord } from "../parse-json.js";
import { stringField } from "./json-shape.js";
import type { Kind } from "./types.js";

/**
 * llama.cpp's `llama-server`. Source: ggml-org/llama.cpp@00dc805 `tools/server/README.md` (its API section).
 * - Paths: `GET /health` (public, `{"status":"ok"}`, 503 while loading) and `GET /props` (`default_generation_settings`,
 *   `total_slots`, `model_path`, `chat_template`, `build_info`); chat, Responses (`/v1/responses`, converted to chat
 *   inside), messages and count_tokens (`/v1/messages`, `/v1/messages/count_tokens`): no segment. `/v1/models` is
 *   OpenAI's shape with one entry, its `created` and `meta.n_ctx` (the window the server runs with, `-c`) beside
 *   `meta.n_ctx_train` (the model's training window, which a request cannot use unless `-c` gives it).
 * - The key (`--api-key`): `Authorization: Bearer` on chat, `x-api-key` on messages (the README's examples).
 * - Reasoning: `reasoning_content`, DeepSeek's field (`--reasoning-format deepseek`, the default "auto"); effort:
 *   `reasoning_effort` ("If `none`, reasoning is disabled. Otherwise the value is made available to the jinja
 *   template") and `chat_template_kwargs`.
 * - One system message, first: chat templates render through its Jinja engine, and the Qwen-family ones raise on a
 *   system message that is not the first (as under vLLM: research tools-2026.md (c)).
 * - Tool schemas become a grammar (ggml-org/llama.cpp@011c6c3 `common/json-schema-to-grammar.cpp`, `visit`): a
 *   boolean where a schema belongs (`"items": true`, a property `false`, `items: false` after `prefixItems`) is
 *   "Unrecognized schema: true" (or `false`), which fails the whole request with 400 "JSON schema conversion failed";
 *   `{}` and `{"not": {}}` say the same and are taken (the real server, issue 49).
 * - `tool_choice` is read as a string only (ggml-org/llama.cpp `tools/server/server-common.cpp`,
 *   `oaicompat_chat_params_parse` through `json_value`: another type is logged as "Wrong type supplied for parameter
 *   'tool_choice'" and read as `auto`). Its own messages endpoint turns a named tool into `required`
 *   (`convert_anthropic_to_oai`: `type == "any" || type == "tool"`); the gateway does too, offering only that tool.
 * - Refusals a retry repeats (SPEC 11), each a 500 `server_error` every time (the real server, issue 49): an image
 *   with no projector loaded ("image input is not supported - hint: if this is unexpected, you may need to provide
 *   the mmproj", `tools/server/server-common.cpp` `oaicompat_chat_params_parse`), the chat template's
 *   `raise_exception` ("Jinja Exception: System message must be at the beginning.", the Qwen templates of its
 *   `models/templates/`), and a reply its tool-call parser cannot read under a forced tool call ("The model produced
 *   output that does not match the expected peg-native format", as the server of 2026-08 words it), which in a stream
 *   is a `data: {"error": ...}` event after a 200.
 * - Its messages endpoint documents only model, messages, max_tokens, system, temperature, top_p, top_k,
 *   stop_sequences, stream, tools and tool_choice: no beta is known to be taken.
 * - Not confirmed: the stored README says the default port is 9931; SPEC 11 and every release before it use 8080.
 * - Default formats: chat only. Its Responses endpoint "works by converting Responses request into Chat Completions"
 *   inside, and its messages endpoint documents the basic fields only: the gateway's own translation carries what
 *   Codex and Claude Code send beyond them. List them in `formats` to use them anyway.
 */
export const llamacpp: Kind = {
  name: "llamacpp",
  title: "llama.cpp",
  defaults: {
    url: "http://127.0.0.1:8080",
    formats: ["chat"],
    messagesSegment: "",
    geminiSegment: "gemini",
    key: "none",
    keyHeader: undefined,
    reasoning: "effort",
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "chat", contextField: "meta.n_ctx" },
  local: true,
  probe: {
    mayGenerate: true,
    recognise: {
      path: "/props",
      matches: (body) => isRecord(body) && isRecord(body.default_generation_settings),
      describe: (body) => (stringField(body, "build_info") ? `build ${stringField(body, "build_info")}` : ""),
    },
  },
  quirks: {
    systemFirst: true,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: false,
    toolChoice: "strings",
    steadyRefusals: [
      { status: 500, says: "image input is not supported" },
      { status: 500, says: "Jinja Exception" },
      { status: 500, says: "does not match the expected" },
    ],
    reasoningField: "reasoning_content",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_tokens",
    betas: [],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
