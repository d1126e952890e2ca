import { parseJsonObject } from "../parse-json.js";
import { bearerToken, headerValue } from "./bearer.js";
import { arrayOf, count, isArray, sseEvent, sumCounts } from "./fields.js";
import type { Family, FieldRule } from "./types.js";

const GENERATE_RULES: readonly FieldRule[] = [["contents", "an array", isArray]];

/** Google's status names for the statuses the gateway answers with itself (SPEC section 4). */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  408: "DEADLINE_EXCEEDED",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** `/v1beta/models/{model}:{method}`: the model may hold slashes (`anthropic/claude-x`), the method may not. */
const MODEL_METHOD = /^\/v1(?:beta)?\/models\/(.*):([A-Za-z]+)$/;

/** The `key=` query parameter (a credential in this family only), or undefined. */
function queryKey(query: string): string | undefined {
  if (query.length < 5) return undefined;
  const key = new URLSearchParams(query).get("key");
  return key || undefined;
}

type UsageMetadata = { promptTokenCount?: unknown; candidatesTokenCount?: unknown; thoughtsTokenCount?: unknown; cachedContentTokenCount?: unknown };
type Part = { text?: unknown; thought?: unknown };
type Candidate = { content?: { parts?: unknown } };

/** The text parts of the first candidate, thoughts left out. */
function candidateText(reply: Record<string, unknown>): string {
  const parts = arrayOf<Part>(arrayOf<Candidate>(reply.candidates)[0]?.content?.parts);
  return parts
    .filter((part) => typeof part.text === "string" && part.thought !== true)
    .map((part) => part.text as string)
    .join("");
}

/**
 * Google Generative Language style: `/{gemini}/v1beta/...`, `/{gemini}/v1/...` and bare `/v1beta/...`. The key
 * travels as `x-goog-api-key`, `?key=` or a bearer token; errors are `{"error":{"code","message","status"}}`.
 */
export const geminiFamily: Family = {
  name: "gemini",
  prefix: (segments) => `/${segments.gemini}`,
  claim(method, pathname, _headers, segments) {
    const root = `/${segments.gemini}`;
    let versioned: string;
    if (pathname.startsWith(`${root}/v1beta/`) || pathname.startsWith(`${root}/v1/`)) versioned = pathname.slice(root.length);
    else if (pathname.startsWith("/v1beta/")) versioned = pathname;
    else return undefined;
    const match = MODEL_METHOD.exec(versioned);
    const generates = method === "POST" && (match?.[2] === "generateContent" || match?.[2] === "streamGenerateContent");
    return {
      upstreamPath: `${root}${versioned}`,
      rules: generates ? GENERATE_RULES : undefined,
      pathModel: match?.[1],
      isModelList: method === "GET" && /^\/v1(beta)?\/models$/.test(versioned),
    };
  },

  presentedKey: (headers, query) => headerValue(headers, "x-goog-api-key") ?? queryKey(query) ?? bearerToken(headers.authorization),
  keyHeaders: ["x-goog-api-key", "authorization"],
  keyHint: "x-goog-api-key: <key>",
  upstreamAuth: (key) => ({ "x-goog-api-key": key }),
  upstreamQuery(query) {
    if (!query.includes("key=")) return query;
    const kept = query
      .slice(1)
      .split("&")
      .filter((part) => part && decodeURIComponent(part.split("=")[0]!.replaceAll("+", " ")) !== "key");
    return kept.length > 0 ? `?${kept.join("&")}` : "";
  },
  needsVersion: false,

  errorBody: ({ status, message }) => ({ error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } }),
  streamErrorEvent(error) {
    return sseEvent(this.errorBody(error));
  },

  // Every reply object and every stream chunk may carry `usageMetadata`; the last one counts.
  readUsage(value, into) {
    const usage = value.usageMetadata as UsageMetadata | undefined;
    if (!usage || typeof usage !== "object") return;
    into.inputTokens = count(usage.promptTokenCount) ?? into.inputTokens;
    into.outputTokens = sumCounts(usage.candidatesTokenCount, usage.thoughtsTokenCount) ?? into.outputTokens;
    into.cacheReadTokens = count(usage.cachedContentTokenCount) ?? into.cacheReadTokens;
  },
  usageMarker: '"usageMetadata"',

  models: {
    path: "/v1beta/models",
    rows: (list) =>
      arrayOf(list.models).map((m) => ({ id: String(m.name ?? "").replace(/^models\//, ""), name: String(m.displayName ?? ""), created: "" })),
    withAliases: (list, aliases) => ({
      ...list,
      models: [
        ...arrayOf(list.models),
        ...aliases.map((id) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ["generateContent", "countTokens"] })),
      ],
    }),
  },

  chat: {
    path: (request) => `/v1beta/models/${request.model}:${request.stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    body: (turns, request) => ({
      contents: turns.map((turn) => ({ role: turn.role === "assistant" ? "model" : "user", parts: [{ text: turn.content }] })),
      ...(request.system ? { systemInstruction: { parts: [{ text: request.system }] } } : {}),
      ...(request.maxTokens ? { generationConfig: { maxOutputTokens: request.maxTokens } } : {}),
    }),
    replyText: candidateText,
    streamPiece(_event, data) {
      const parsed = parseJsonObject(data);
      if (!parsed) return undefined;
      const error = parsed.error as { message?: unknown } | undefined;
      if (error) return { error: typeof error.message === "string" ? error.message : "the upstream reported an error" };
      const text = candidateText(parsed);
      return text ? { text } : undefined;
    },
  },
};
