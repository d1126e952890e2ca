import type { IncomingHttpHeaders } from "node:http";
import { errorTypeFor, isApiErrorType, type ErrorFields } from "../../errors/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { bearerToken, headerValue } from "../bearer.js";
import { arrayOf, count, dateOf, rfc3339Of, secondsOf } from "../fields.js";
import type { PathClaim, Segments, UsageReader } from "../types.js";
import { errorRenderer } from "../error-renderer.js";
import type { Family } from "../family-types.js";
import { messagesModelList } from "./echo-models.js";

/** The version sent upstream when neither the user nor the client names one. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

type UsageFields = {
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
};

/** The client's version header, `vendor-version` accepted as an alias. */
function clientVersion(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["anthropic-version"] ?? headers["vendor-version"];
  return typeof value === "string" && value ? value : undefined;
}

const wantsMessages = (headers: IncomingHttpHeaders): boolean =>
  headers["anthropic-version"] !== undefined || headers["vendor-version"] !== undefined;

/** `v1Path` is the path from `/v1/` on. */
const claimUnder = (method: string, v1Path: string): PathClaim => ({ rest: v1Path, pathModel: undefined, lists: method === "GET" && v1Path === "/v1/models" });

/** `/anthropic`, or `""` when the segment is empty (the family then lives at the root, as on api.anthropic.com). */
const prefixOf = (segments: Segments): string => (segments.messages ? `/${segments.messages}` : "");

/** `usage` at the top (replies, `message_delta`) or under `message` (`message_start`). */
export const messagesUsage: UsageReader = {
  read(value, into) {
    const holder = value as { usage?: UsageFields | null; message?: { usage?: UsageFields | null } };
    const usage = holder.usage ?? holder.message?.usage;
    if (!usage || typeof usage !== "object") return;
    into.inputTokens = count(usage.input_tokens) ?? into.inputTokens;
    into.outputTokens = count(usage.output_tokens) ?? into.outputTokens;
    into.cacheReadTokens = count(usage.cache_read_input_tokens) ?? into.cacheReadTokens;
    into.cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? into.cacheWriteTokens;
  },
  marker: '"usage"',
  cacheInInput: false,
};

// Anthropic's envelope has its own words only: another family's (chat's `insufficient_quota`) becomes its status's type.
const errorBody = ({ status, type, message }: ErrorFields) => ({ type: "error", error: { type: isApiErrorType(type) ? type : errorTypeFor(status), message } });

/**
 * Anthropic style: `/{segment}/v1/...`, bare `/v1/messages` and `count_tokens`, and any other `/v1/` request that
 * carries a version header (Claude Code's `/v1/models`). `x-api-key` (bearer accepted locally too),
 * `{"type":"error",...}` envelope, `event: error` stream event.
 */
export const messagesFamily: Family = {
  name: "messages",
  paths: {
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
  },

  auth: {
    presentedKey: (headers) => headerValue(headers, "x-api-key") ?? bearerToken(headers.authorization),
    queryKeys: () => [],
    keyHint: "x-api-key: <key>",
    upstreamAuth: (key) => ({ "x-api-key": key }),
    upstreamQuery: (query) => query,
    defaultVersion: DEFAULT_ANTHROPIC_VERSION,
    version: clientVersion,
  },

  errors: errorRenderer(errorBody, "error"),

  usage: messagesUsage,

  echo: { models: messagesModelList, model: () => undefined },

  models: {
    path: "/v1/models",
    entries: (list) => arrayOf(list.data),
    row: (m) => ({ id: String(m.id ?? ""), name: String(m.display_name ?? ""), created: dateOf(m.created_at), createdSeconds: secondsOf(m.created_at) }),
    entry: (id, name, _owner, createdSeconds) => ({ type: "model", id, display_name: name, created_at: rfc3339Of(createdSeconds ?? 0) }),
    list: (data, template) => ({
      has_more: false,
      ...template,
      data,
      ...(data.length > 0 ? { first_id: template.first_id ?? data[0]!.id, last_id: data[data.length - 1]!.id } : {}),
    }),
    nameTitle: "NAME",
  },

  terminal: {
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
