import { encodeEvent } from "../sse/sse.js";
import { parseJsonObject } from "../parse-json.js";
import { bearerToken } from "./bearer.js";
import { arrayOf, count, dateOf, MODEL_AND_MESSAGES } from "./fields.js";
import type { Family } from "./types.js";

type UsageFields = {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  input_tokens_details?: { cached_tokens?: unknown } | null;
};

type Choice = { message?: { content?: unknown }; delta?: { content?: unknown } };

/** The OpenAI family's model calls: Chat Completions and Responses, each a format of its own. */
const GENERATE_PATHS: Readonly<Record<string, "chat" | "responses">> = { "/v1/chat/completions": "chat", "/v1/responses": "responses" };

/**
 * OpenAI style: Chat Completions, Responses and everything else under `/v1/` (embeddings, files) that is not
 * claimed by the messages family. Bearer auth, `{"error":{...}}` envelope, `data:`-only error event.
 */
export const chatFamily: Family = {
  name: "chat",
  prefix: () => "",
  claim(method, pathname) {
    if (!pathname.startsWith("/v1/")) return undefined;
    const format = method === "POST" ? GENERATE_PATHS[pathname] : undefined;
    return {
      kind: format ? "generate" : method === "GET" && pathname === "/v1/models" ? "models" : "other",
      format,
      rest: pathname,
      // Responses bodies are not checked (SPEC section 3.5): only Chat Completions has required fields.
      rules: format === "chat" ? MODEL_AND_MESSAGES : undefined,
      pathModel: undefined,
    };
  },
  withModel: (rest) => rest,

  presentedKey: (headers) => bearerToken(headers.authorization),
  keyHint: "Authorization: Bearer <key>",
  upstreamAuth: (key) => ({ authorization: `Bearer ${key}` }),
  upstreamQuery: (query) => query,
  needsVersion: false,

  errorBody: ({ message, type, param, code }) => ({ error: { message, type, param, code } }),
  streamErrorEvent(error) {
    return encodeEvent({ data: this.errorBody(error) });
  },

  // Chat Completions report `usage` at the top (the last chunk when streaming); the Responses API at the top
  // (non-stream) or under `response` (`response.completed`).
  readUsage(value, into) {
    const holder = value as { usage?: UsageFields | null; response?: { usage?: UsageFields | null } };
    const usage = holder.usage ?? holder.response?.usage;
    if (!usage || typeof usage !== "object") return;
    into.inputTokens = count(usage.prompt_tokens ?? usage.input_tokens) ?? into.inputTokens;
    into.outputTokens = count(usage.completion_tokens ?? usage.output_tokens) ?? into.outputTokens;
    into.cacheReadTokens = count(usage.prompt_tokens_details?.cached_tokens ?? usage.input_tokens_details?.cached_tokens) ?? into.cacheReadTokens;
  },
  usageMarker: '"usage"',

  models: {
    path: "/v1/models",
    entries: (list) => arrayOf(list.data),
    row: (m) => ({ id: String(m.id ?? ""), name: String(m.owned_by ?? ""), created: dateOf(m.created) }),
    entry: (id, _name, owner) => ({ id, object: "model", created: 0, owned_by: owner }),
    list: (entries, template) => ({ object: "list", ...template, data: entries }),
  },

  chat: {
    path: () => "/v1/chat/completions",
    body: (turns, request) => ({
      model: request.model,
      messages: request.system ? [{ role: "system", content: request.system }, ...turns] : turns,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(request.stream ? { stream: true } : {}),
    }),
    replyText(reply) {
      const content = arrayOf<Choice>(reply.choices)[0]?.message?.content;
      return typeof content === "string" ? content : "";
    },
    streamPiece(_event, data) {
      if (data === "[DONE]") return undefined;
      const parsed = parseJsonObject(data);
      if (!parsed) return undefined;
      const error = parsed.error as { message?: unknown } | undefined;
      if (error) return { error: typeof error.message === "string" ? error.message : "the upstream reported an error" };
      const content = arrayOf<Choice>(parsed.choices)[0]?.delta?.content;
      return typeof content === "string" && content ? { text: content } : undefined;
    },
  },
};
