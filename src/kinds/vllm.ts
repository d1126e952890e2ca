import { stringField } from "./json-shape.js";
import type { Kind } from "./types.js";

/**
 * vLLM (`vllm serve`). Sources: vllm-project/vllm, stored versions named by commit.
 * - Paths: `GET /version` answers `{"version": ...}` (@dcbf200 `vllm/entrypoints/serve/instrumentator/basic.py`,
 *   `show_version`), unguarded by `--api-key` (@baaf6e9 `vllm/entrypoints/serve/middleware/authenticate.py`: only
 *   `/v1`, `/v2`, `/inference`, `/cohere` need the key); chat, Responses and messages under `/v1` (basic.py lists
 *   `/v1/responses`, `/v1/messages`, `/v1/chat/completions`); messages and count_tokens at `/v1/messages`
 *   (@01540b7 `vllm/entrypoints/anthropic/api_router.py`): no segment. The model list is OpenAI's shape with
 *   `max_model_len` per model.
 * - The key: with `--api-key`, every `/v1` path checks `Authorization: Bearer` only (authenticate.py
 *   `verify_token`), `/v1/messages` included, so an `x-api-key` is refused there.
 * - Reasoning: the message field is `reasoning` (@002032e `chat_completion/protocol.py` `ChatMessage.reasoning`;
 *   docs.vllm.ai/en/stable/features/reasoning_outputs: "reasoning used to be called reasoning_content"; vLLM >= 0.16
 *   drops `reasoning_content` on input, anomalyco/opencode#30477). Effort: `reasoning_effort` (protocol.py), and
 *   `chat_template_kwargs`: Qwen3 thinks unless `enable_thinking` is false, DeepSeek-V3.1 and Granite only with
 *   `thinking` true (reasoning_outputs doc; @ the deepseek_v3 parser reads both keys).
 * - One system message, first: the Qwen-family templates vLLM renders raise "System message must be at the
 *   beginning" (research tools-2026.md (c), hermes-studio PR #2714); vLLM's own messages endpoint folds inline
 *   system messages for the same reason (@a8c3bdb `vllm/entrypoints/anthropic/inline_system.py`), but releases
 *   before 0.23 refuse them (vllm-project/vllm#44000): their betas are withheld and their text carried in place.
 * - Messages body (@00589e5 `anthropic/protocol.py`): content block types are a closed list (an advisor block is a
 *   422), every tool needs `input_schema` (an advisor tool is a 422); older releases lack `tool_reference`.
 * - Output: a request whose prompt plus `max_tokens` passes `max_model_len` is a 400 "'max_tokens' or
 *   'max_completion_tokens' is too large" (vLLM's serving validation; the bound depends on the model, so it is
 *   read from `max_model_len`, not fixed here).
 * - Default formats: chat only. Its messages endpoint refuses what releases before 0.23 do not know (above), and
 *   its Responses endpoint is not known to take Codex's `custom` tools, `additional_tools` or compaction: the
 *   gateway's translation carries those. List them in `formats` to use them anyway.
 */
export const vllm: Kind = {
  name: "vllm",
  title: "vLLM",
  defaults: {
    url: "http://127.0.0.1:8000",
    formats: ["chat"],
    messagesSegment: "",
    geminiSegment: "gemini",
    key: "none",
    keyHeader: undefined,
    reasoning: "effort",
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "chat", contextField: "max_model_len" },
  local: true,
  probe: {
    mayGenerate: true,
    recognise: { path: "/version", matches: (body) => stringField(body, "version") !== undefined, describe: (body) => `version ${stringField(body, "version")}` },
  },
  quirks: {
    systemFirst: true,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "reasoning",
    effortDialect: "reasoning_effort_and_template_switch",
    maxTokensField: "max_tokens",
    betas: [],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: true,
    billingHeader: false,
  },
};
