import { chatFamily } from "../chat/family.js";
import type { Family } from "../family-types.js";

/**
 * Codex's model catalog (SPEC 12, Codex's model catalog). A provider with `model_catalog_url` makes Codex ask
 * `GET <model_catalog_url>?client_version=<its version>` with the provider's key (seen with Codex 0.169 and 0.171:
 * `gateway run codex` points it at `<base>/models`, so the ask is `GET /v1/models?client_version=...`). The query is
 * what tells it from an OpenAI model list: no OpenAI client sends `client_version`. Its built-in provider asks nothing
 * with an API key (0.171, `api_key_model_discovery` on or off).
 */
export const asksForCodexCatalog = (family: Family, query: string): boolean => family === chatFamily && new URLSearchParams(query).has("client_version");

/** One model a Responses client may reach through the gateway, with what the gateway knows of it. */
export interface CatalogModel {
  id: string;
  /** The upstream a request for it is routed to first. */
  upstream: string;
  contextWindow: number | undefined;
  /** Whether its upstream takes a reasoning effort. */
  reasons: boolean;
}

/**
 * The instructions Codex sends first for a model of the catalog: a catalog entry's `base_instructions` replace Codex's
 * own prompt (Codex 0.171 sends them as its first developer message), and the gateway does not ship Codex's text.
 * Short on purpose: a small local model's window is better spent on the conversation. Codex's
 * `model_instructions_file` still replaces them.
 */
export const CATALOG_INSTRUCTIONS =
  "You are a coding agent working in the user's terminal through Codex. Work in the user's project: read files and run commands with the tools you are given, make the changes asked for, and check them before you say they are done. Be precise and brief: say what you changed, and what you could not do and why.";

const EFFORTS = [
  { effort: "low", description: "Fast answers, little reasoning" },
  { effort: "medium", description: "Balanced reasoning" },
  { effort: "high", description: "Deep reasoning for hard problems" },
];

/**
 * Codex's `ModelsResponse` (codex-rs `protocol/src/openai_models.rs`): each `ModelInfo` carries every field Codex
 * 0.169/0.171 decode without a default (else it logs "failed to decode models response" and ignores the whole list);
 * `context_window` only when the gateway knows it (Codex then compacts at 90% of it: `auto_compact_token_limit`
 * derives from it). `truncation_policy` (a tool's output cut at 10,000 tokens), `shell_type`, `apply_patch_tool_type`
 * (freeform) and parallel tool calls are what every model of Codex 0.171's own bundled catalog says, so Codex offers
 * the same tools as for its own models. `priority` keeps the gateway's order (Codex without `-m` takes the first).
 */
export function codexCatalog(models: readonly CatalogModel[]): { models: Record<string, unknown>[] } {
  return {
    models: models.map((model, i) => ({
      slug: model.id,
      display_name: model.id,
      description: `${model.id} through the gateway (upstream ${model.upstream})`,
      ...(model.reasons ? { default_reasoning_level: "medium" } : {}),
      supported_reasoning_levels: model.reasons ? EFFORTS : [],
      shell_type: "shell_command",
      visibility: "list",
      supported_in_api: true,
      priority: i,
      upgrade: null,
      base_instructions: CATALOG_INSTRUCTIONS,
      supports_reasoning_summaries: model.reasons,
      support_verbosity: false,
      default_verbosity: null,
      apply_patch_tool_type: "freeform",
      truncation_policy: { mode: "tokens", limit: 10_000 },
      supports_parallel_tool_calls: true,
      ...(model.contextWindow === undefined ? {} : { context_window: model.contextWindow }),
      experimental_supported_tools: [],
    })),
  };
}
