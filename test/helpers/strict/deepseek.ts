import { callsAnswered, functionNames, messagesFunctions, messagesOf, schemaPatterns, toolAfterCall } from "./chat-rules.js";
import type { Json, Refusal, Rule, StrictKind } from "./core.js";
import { refusedConstruct } from "./regex-dialects.js";

/**
 * DeepSeek's API (`kind: "deepseek"`): chat at `/v1/chat/completions`, and its Anthropic-compatible endpoint at
 * `/anthropic/v1/messages`. Both answer refusals in one envelope, `{"error": {"message", "type":
 * "invalid_request_error", "param": null, "code": "invalid_request_error"}}` with status 400 (zed-industries/zed#64386,
 * FoundationAgents/OpenManus#23 on chat; Yachiyo-5i/xLyra#60 on `/anthropic`).
 */

const envelope = (r: Refusal) => ({ error: { message: r.message, type: r.type ?? "invalid_request_error", param: null, code: "invalid_request_error" } });
const models = {
  object: "list",
  data: [
    { id: "deepseek-v4-flash", object: "model", owned_by: "deepseek" },
    { id: "deepseek-v4-pro", object: "model", owned_by: "deepseek" },
  ],
};

/** DeepSeek's own words for a pattern its validator refuses: the name in single quotes, the pattern as JSON. */
const patternRefusal = (name: string, pattern: string): Refusal => ({ message: `Invalid schema for function '${name}': ${JSON.stringify(pattern)} is not a "regex"` });
const compiles = (pattern: string) => refusedConstruct(pattern) === undefined;
const PATTERN_SOURCE =
  "zed-industries/zed#64386 and Dokploy/mcp#43 (wording); SPEC 12 and lidge-jun/opencodex#5658 (`^[^\\u0000]*$` refused), Yachiyo-5i/xLyra#60 (Claude Code's Artifact pattern refused, on `/anthropic` too)";

/** Thinking mode: on for `deepseek-reasoner`, for the V4 models unless switched off, and wherever `thinking` turns it on. */
export function deepseekThinks(body: Json): boolean {
  const type = (body.thinking as { type?: string } | undefined)?.type;
  if (type !== undefined) return type === "enabled";
  return body.model === "deepseek-reasoner" || String(body.model).startsWith("deepseek-v4");
}

/**
 * In thinking mode, an assistant message with tool calls after the last user message (the current turn's tool loop)
 * must carry its `reasoning_content` back (api-docs.deepseek.com/guides/thinking_mode, tool calls; earlier turns' may
 * be left out). Some clients report every assistant message needs it (NousResearch/hermes-agent#15228); the fake
 * holds to the docs.
 */
const reasoningReplay: Rule = {
  rule: "thinking mode: an assistant tool call of the current turn sent back without its reasoning_content",
  source: "api-docs.deepseek.com/guides/thinking_mode (tool calls); wording: Kuberwastaken/claurst#121, research translation.md A1 (JohnnyZ93/oai-compatible-copilot#215)",
  check: (body) => {
    if (!deepseekThinks(body)) return undefined;
    const messages = messagesOf(body);
    const lastUser = messages.map((message) => message.role).lastIndexOf("user");
    const missing = messages.some((message, i) => i > lastUser && message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0 && typeof message.reasoning_content !== "string");
    return missing ? { message: "The reasoning_content in the thinking mode must be passed back to the API." } : undefined;
  },
};

/** V4's output limit (api-docs.deepseek.com/quick_start/pricing: 384K), in the wording of the older 8K one. */
const MAX_OUTPUT = 393216;

export const deepseekKind: StrictKind = {
  name: "deepseek",
  format: "chat",
  models,
  contextWindow: 1_000_000,
  envelope,
  rules: [
    functionNames("nikkigallery/Whimbox#61, refly-ai/refly#1794 (OpenAI's words, DeepSeek's envelope)", (where) => ({
      message: `Invalid '${where}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
    })),
    toolAfterCall("FoundationAgents/OpenManus#23 (deepseek-chat), qwersyk/Newelle#425 (DeepSeek V4)", () => ({ message: "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'" })),
    callsAnswered("agno-agi/agno#3105, smallmain/vscode-unify-chat-provider#248", () => ({
      message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
    })),
    schemaPatterns(PATTERN_SOURCE, compiles, (_i, name, pattern) => patternRefusal(name, pattern)),
    reasoningReplay,
    {
      rule: `max_tokens outside [1, ${MAX_OUTPUT}]`,
      source: "research translation.md row 12 (router-for-me/CLIProxyAPI#599: \"Invalid max_tokens value, the valid range of max_tokens is [1, 8192]\"); V4's bound from MoonshotAI/kimi-code#509",
      check: (body) => {
        const max = body.max_tokens;
        return typeof max === "number" && (max < 1 || max > MAX_OUTPUT) ? { message: `Invalid max_tokens value, the valid range of max_tokens is [1, ${MAX_OUTPUT}]` } : undefined;
      },
    },
  ],
};

/** DeepSeek's Anthropic-compatible endpoint (`/anthropic/v1/messages`), the messages kind the suite cannot run. */
export const deepseekAnthropicKind: StrictKind = {
  name: "deepseek-anthropic",
  format: "messages",
  models,
  contextWindow: 1_000_000,
  envelope,
  rules: [schemaPatterns(PATTERN_SOURCE, compiles, (_i, name, pattern) => patternRefusal(name, pattern), messagesFunctions)],
};
