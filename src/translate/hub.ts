/**
 * Chat Completions as the hub every translation goes through: a request in any client format becomes a
 * `HubRequest`, a reply from any upstream format becomes a `HubReply` (or a stream of `HubChunk`s), and each
 * format only knows how to reach the hub and come back from it. These are the wire shapes of
 * `POST /v1/chat/completions`, typed loosely on purpose: upstreams send every odd variant, and a field the
 * types do not name still passes through the object untouched.
 */

export type Json = Record<string, unknown>;

/** A part of a user (or system) message's content. */
export type HubContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } };

/** One tool call on an assistant message; `arguments` is JSON text. */
export interface HubToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The upstream field that carries reasoning text: DeepSeek, llama.cpp, SGLang use the first, vLLM >= 0.16, Ollama and OpenRouter the second. */
export type ReasoningField = "reasoning_content" | "reasoning";

export type HubMessage =
  | { role: "system" | "developer"; content: string | HubContentPart[] }
  | { role: "user"; content: string | HubContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: HubToolCall[];
      /** Reasoning sent back to the upstream that made it, under the field name it used. */
      reasoning_content?: string;
      reasoning?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string };

export interface HubTool {
  type: "function";
  function: { name: string; description?: string; parameters: Json; strict?: boolean };
}

export type HubToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

export type HubResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; json_schema: { name: string; schema: Json; strict?: boolean; description?: string } };

/** `POST /v1/chat/completions` as the gateway sends it. Only the fields a translation may set are named. */
export interface HubRequest {
  model: string;
  messages: HubMessage[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  tools?: HubTool[];
  tool_choice?: HubToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: HubResponseFormat;
  reasoning_effort?: "low" | "medium" | "high";
  /** Codex's cache routing key; only kinds that take it keep it (`KindQuirks.promptCacheKey`). */
  prompt_cache_key?: string;
  /** Claude Code's fast mode; only kinds that take it keep it (`KindQuirks.priorityTier`). */
  service_tier?: "priority";
  /** Anything else a client format maps 1:1 (seed, presence_penalty, n, user). */
  [extra: string]: unknown;
}

/** Token counts as chat reports them. */
export interface HubUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_creation_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

export type HubFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

/** A non-stream chat reply. Reasoning may come under either field name, as a string. */
export interface HubReply {
  id: string;
  object?: string;
  created?: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: "assistant";
      content: string | null;
      tool_calls?: HubToolCall[];
      reasoning_content?: string | null;
      reasoning?: string | null;
      /** OpenRouter's structured reasoning (`reasoning.text`, `reasoning.summary`, `reasoning.encrypted` entries). */
      reasoning_details?: unknown;
    };
    finish_reason: HubFinishReason | string | null;
  }[];
  usage?: HubUsage;
}

/** One tool-call piece of a stream chunk: any of its fields may be missing (see `createHubEventReader` in `hub-events.ts`). */
export interface HubToolCallDelta {
  index?: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string | Json };
}

/** One streamed chat chunk (`chat.completion.chunk`). */
export interface HubChunk {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices: {
    index: number;
    delta: {
      role?: "assistant";
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      reasoning_details?: unknown;
      tool_calls?: HubToolCallDelta[];
    };
    finish_reason: HubFinishReason | string | null;
  }[];
  usage?: HubUsage | null;
}
