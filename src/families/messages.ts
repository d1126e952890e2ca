import { encodeEvent } from "../sse/sse.js";
import type { IncomingHttpHeaders } from "node:http";
import { parseJsonObject } from "../parse-json.js";
import { bearerToken, headerValue } from "./bearer.js";
import { arrayOf, count, dateOf, isArray, isPositiveInteger, isString, MODEL_AND_MESSAGES } from "./fields.js";
import type { Claim, Family, FieldRule, Segments } from "./types.js";

/** The version sent upstream by our own client when the user has not pinned one. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

const MESSAGES_RULES: readonly FieldRule[] = [
  ["model", "a string", isString],
  ["max_tokens", "an integer greater than 0", isPositiveInteger],
  ["messages", "an array", isArray],
];

type UsageFields = {
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
};

const wantsMessages = (headers: IncomingHttpHeaders): boolean =>
  headers["anthropic-version"] !== undefined || headers["vendor-version"] !== undefined;

/** `v1Path` is the path from `/v1/` on. */
function claimUnder(method: string, v1Path: string): Claim {
  const post = method === "POST";
  const generate = post && v1Path === "/v1/messages";
  const count = post && v1Path === "/v1/messages/count_tokens";
  return {
    kind: generate ? "generate" : count ? "count" : method === "GET" && v1Path === "/v1/models" ? "models" : "other",
    format: generate || count ? "messages" : undefined,
    rest: v1Path,
    rules: generate ? MESSAGES_RULES : count ? MODEL_AND_MESSAGES : undefined,
    pathModel: undefined,
  };
}

/** `/anthropic`, or `""` when the segment is empty (the family then lives at the root, as on api.anthropic.com). */
const prefixOf = (segments: Segments): string => (segments.messages ? `/${segments.messages}` : "");

/**
 * Anthropic style: `/{segment}/v1/...`, bare `/v1/messages` and `count_tokens`, and any other `/v1/` request that
 * carries a version header (Claude Code's `/v1/models`). `x-api-key` (bearer accepted locally too),
 * `{"type":"error",...}` envelope, `event: error` stream event.
 */
export const messagesFamily: Family = {
  name: "messages",
  prefix: prefixOf,
  claim(method, pathname, headers, segments) {
    const root = prefixOf(segments);
    if (root && pathname.startsWith(`${root}/v1/`)) return claimUnder(method, pathname.slice(root.length));
    if (!pathname.startsWith("/v1/")) return undefined;
    const bare = method === "POST" && (pathname === "/v1/messages" || pathname === "/v1/messages/count_tokens");
    const isOpenAiCall = method === "POST" && (pathname === "/v1/chat/completions" || pathname === "/v1/responses");
    return bare || (wantsMessages(headers) && !isOpenAiCall) ? claimUnder(method, pathname) : undefined;
  },
  withModel: (rest) => rest,

  presentedKey: (headers) => headerValue(headers, "x-api-key") ?? bearerToken(headers.authorization),
  keyHint: "x-api-key: <key>",
  upstreamAuth: (key) => ({ "x-api-key": key }),
  upstreamQuery: (query) => query,
  needsVersion: true,

  errorBody: ({ type, message }) => ({ type: "error", error: { type, message } }),
  streamErrorEvent(error) {
    return encodeEvent({ event: "error", data: this.errorBody(error) });
  },

  // `usage` at the top (replies, `message_delta`) or under `message` (`message_start`).
  readUsage(value, into) {
    const holder = value as { usage?: UsageFields | null; message?: { usage?: UsageFields | null } };
    const usage = holder.usage ?? holder.message?.usage;
    if (!usage || typeof usage !== "object") return;
    into.inputTokens = count(usage.input_tokens) ?? into.inputTokens;
    into.outputTokens = count(usage.output_tokens) ?? into.outputTokens;
    into.cacheReadTokens = count(usage.cache_read_input_tokens) ?? into.cacheReadTokens;
    into.cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? into.cacheWriteTokens;
  },
  usageMarker: '"usage"',

  models: {
    path: "/v1/models",
    entries: (list) => arrayOf(list.data),
    row: (m) => ({ id: String(m.id ?? ""), name: String(m.display_name ?? ""), created: dateOf(m.created_at) }),
    entry: (id, name) => ({ type: "model", id, display_name: name, created_at: "1970-01-01T00:00:00Z" }),
    list: (data, template) => ({
      has_more: false,
      ...template,
      data,
      ...(data.length > 0 ? { first_id: template.first_id ?? data[0]!.id, last_id: data[data.length - 1]!.id } : {}),
    }),
  },

  chat: {
    path: () => "/v1/messages",
    body: (turns, request) => ({
      model: request.model,
      max_tokens: request.maxTokens ?? 4096,
      ...(request.system ? { system: request.system } : {}),
      messages: turns,
      ...(request.stream ? { stream: true } : {}),
    }),
    replyText: (reply) =>
      arrayOf(reply.content)
        .filter((block) => block.type === "text")
        .map((block) => String(block.text))
        .join(""),
    streamPiece(event, data) {
      const parsed = parseJsonObject(data);
      if (!parsed) return undefined;
      const error = parsed.error as { message?: unknown } | undefined;
      if (error && (event === "error" || parsed.type === "error")) {
        return { error: typeof error.message === "string" ? error.message : "the upstream reported an error" };
      }
      const delta = parsed.delta as { type?: unknown; text?: unknown } | undefined;
      return parsed.type === "content_block_delta" && delta?.type === "text_delta" && typeof delta.text === "string" ? { text: delta.text } : undefined;
    },
  },
};
