import { FORMAT_NAMES } from "../formats/names.js";
import type { Kind } from "./types.js";

/**
 * A LiteLLM proxy (`litellm --config ...`), usually a team's. Sources: BerriAI/litellm (stored versions by commit).
 * - No usual address: each team runs its own (the entry names it; docs use `http://localhost:4000`).
 * - Paths: chat, Responses and `/v1/models` under `/v1`; messages at `/v1/messages` and Gemini at `/v1beta/models/...`
 *   at its root (docs.litellm.ai: /anthropic_unified, /google_ai_studio): both segments empty.
 * - Recognition: `GET /health/liveliness` answers `"I'm alive!"` without a key (@017076d
 *   `litellm/proxy/health_endpoints/_health_endpoints.py`, `health_liveliness`). Its `GET /health` calls every
 *   configured model (`perform_health_check`): a generation billed to the team, never sent by a probe.
 * - Betas: it forwards only the `anthropic-beta` values its own table knows, mapped per provider and dropped where
 *   the provider has none (`litellm/anthropic_beta_headers_config.json`: "Only headers present in mapping keys with
 *   non-null values can be forwarded"). The list below is that table's keys with a value for some provider as of
 *   @151c76a (early 2026, the 1.81 line teams run; issue 49 ran 1.81.12), not the newest table (@030dd40), whose
 *   newer values (`advisor-tool-2026-03-01`, `compact-2026-09-04`, `dangerous-tool-use-2026-09-03`,
 *   `per-turn-control-2026-07-01`, `thinking-binding-controls-2026-08-01`, `thinking-display-updates-2026-08-18`,
 *   `mid-conversation-output-config-2026-07-01`, `mid-conversation-tool-changes-2026-07-01`, and bedrock_mantle's
 *   `claude-code-20250219` and `tool-examples-2025-10-29`) a 1.81 proxy drops while keeping their fields. A value it does not know is withheld
 *   with its body fields, since LiteLLM would drop the header and keep the field (the 400 of sifxprime/krouter#16).
 *   The older table is the safe one: a newer LiteLLM knows all of it, and loses only the newer features. (Keyed on
 *   the `x-litellm-version` every reply carries, the table would need each release's copy; one table is enough.)
 * - Mid-conversation system messages were dropped silently by its messages endpoint (BerriAI/litellm#36917).
 * - Reasoning: `reasoning_content` on chat, `reasoning_effort` mapped per provider (docs.litellm.ai: reasoning_content).
 * - It retries on its own (`num_retries`); the README's recipe measured one 429 becoming 9 provider calls with both: 0.
 */
export const litellm: Kind = {
  name: "litellm",
  title: "LiteLLM",
  defaults: {
    url: undefined,
    formats: FORMAT_NAMES,
    messagesSegment: "",
    geminiSegment: "",
    key: "keychain",
    keyHeader: undefined,
    reasoning: "effort",
    maxOutputTokens: undefined,
    retries: 0,
  },
  modelList: { family: "chat", contextField: undefined },
  local: false,
  probe: { mayGenerate: false, recognise: { path: "/health/liveliness", matches: (body) => body === "I'm alive!", describe: () => "" } },
  quirks: {
    systemFirst: false,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "reasoning_content",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_tokens",
    betas: [
      "advanced-tool-use-2025-11-20",
      "code-execution-2025-08-25",
      "compact-2026-01-12",
      "computer-use-2025-01-24",
      "computer-use-2025-11-24",
      "context-1m-2025-08-07",
      "context-management-2025-06-27",
      "effort-2025-11-24",
      "fast-mode-2026-02-01",
      "files-api-2025-04-14",
      "fine-grained-tool-streaming-2025-05-14",
      "interleaved-thinking-2025-05-14",
      "mcp-client-2025-04-04",
      "mcp-client-2025-11-20",
      "oauth-2025-04-20",
      "output-128k-2025-02-19",
      "prompt-caching-scope-2026-01-05",
      "skills-2025-10-02",
      "structured-outputs-2025-11-13",
      "token-efficient-tools-2025-02-19",
      "tool-search-tool-2025-10-19",
      "web-fetch-2025-09-10",
      "web-search-2025-03-05",
    ],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
