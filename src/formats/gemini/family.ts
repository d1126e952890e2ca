import { googleStatusFor, type ErrorFields } from "../../errors/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { bearerToken, headerValue } from "../bearer.js";
import { arrayOf, count, sumCounts } from "../fields.js";
import type { Segments, UsageReader } from "../types.js";
import { errorRenderer } from "../error-renderer.js";
import type { Family } from "../family-types.js";
import { geminiModelAt, geminiModelList } from "./echo-models.js";

/** `/v1beta/models/{model}:{method}`: the model may hold slashes (`anthropic/claude-x`), the method may not. */
const MODEL_METHOD = /^\/(v1(?:beta)?)\/models\/(.*):([A-Za-z]+)$/;

/** The model and method of a path under the family's prefix (`/v1beta/models/{model}:{method}`), if it names them. */
export function modelMethod(rest: string): { version: string; model: string; method: string } | undefined {
  const match = MODEL_METHOD.exec(rest);
  return match ? { version: match[1]!, model: match[2]!, method: match[3]! } : undefined;
}

/** `/gemini`, or `""` when the segment is empty (the family then lives at the root, as on Google's own host). */
const prefixOf = (segments: Segments): string => (segments.gemini ? `/${segments.gemini}` : "");

/** The path of a model method, in one place: `/v1beta/models/{model}:{method}`. */
export const geminiModelPath = (model: string, method: string, version = "v1beta"): string => `/${version}/models/${model}:${method}`;

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

/** Every reply object and every stream chunk may carry `usageMetadata`; the last one counts. */
export const geminiUsage: UsageReader = {
  read(value, into) {
    const usage = value.usageMetadata as UsageMetadata | undefined;
    if (!usage || typeof usage !== "object") return;
    into.inputTokens = count(usage.promptTokenCount) ?? into.inputTokens;
    into.outputTokens = sumCounts(usage.candidatesTokenCount, usage.thoughtsTokenCount) ?? into.outputTokens;
    into.cacheReadTokens = count(usage.cachedContentTokenCount) ?? into.cacheReadTokens;
  },
  marker: '"usageMetadata"',
  cacheInInput: true,
};

// The SDK turns this envelope into an ApiError with the code, so Gemini CLI retries a 429 or 5xx as against Google.
const errorBody = ({ status, message }: ErrorFields) => ({ error: { code: status, message, status: googleStatusFor(status) } });

/**
 * Google Generative Language style: `/{gemini}/v1beta/...`, `/{gemini}/v1/...` and bare `/v1beta/...`. The key
 * travels as `x-goog-api-key`, `?key=` or a bearer token; errors are `{"error":{"code","message","status"}}`.
 */
export const geminiFamily: Family = {
  name: "gemini",
  paths: {
    prefix: prefixOf,
    claim(method, pathname, _headers, segments) {
      const root = prefixOf(segments);
      let rest: string;
      if (root && (pathname.startsWith(`${root}/v1beta/`) || pathname.startsWith(`${root}/v1/`))) rest = pathname.slice(root.length);
      else if (pathname.startsWith("/v1beta/")) rest = pathname;
      else return undefined;
      return { rest, pathModel: modelMethod(rest)?.model, lists: method === "GET" && /^\/v1(beta)?\/models$/.test(rest) };
    },
    withModel(rest, model) {
      const named = modelMethod(rest);
      return named ? geminiModelPath(model, named.method, named.version) : rest;
    },
  },

  auth: {
    presentedKey: (headers, query) => headerValue(headers, "x-goog-api-key") ?? queryKey(query) ?? bearerToken(headers.authorization),
    queryKeys: (query) => (query.length < 5 ? [] : new URLSearchParams(query).getAll("key")),
    keyHint: "x-goog-api-key: <key>",
    upstreamAuth: (key) => ({ "x-goog-api-key": key }),
    upstreamQuery(query) {
      if (query.length < 2) return query;
      // Each name decoded as `presentedKey` decodes it (URLSearchParams: `k%65y` is `key`, a malformed escape stays as
      // it is), so a key the gateway accepted can never go upstream under another spelling; the rest leaves as it came.
      const kept = query
        .slice(1)
        .split("&")
        .filter((part) => part && !new URLSearchParams(part.split("=")[0]).has("key"));
      return kept.length > 0 ? `?${kept.join("&")}` : "";
    },
    defaultVersion: undefined,
    version: () => undefined,
  },

  errors: errorRenderer(errorBody),

  usage: geminiUsage,

  echo: { models: geminiModelList, model: geminiModelAt },

  models: {
    path: "/v1beta/models",
    entries: (list) => arrayOf(list.models),
    row: (m) => ({ id: String(m.name ?? "").replace(/^models\//, ""), name: String(m.displayName ?? ""), created: "", createdSeconds: undefined }),
    entry: (id, name) => ({ name: `models/${id}`, displayName: name, supportedGenerationMethods: ["generateContent", "countTokens"] }),
    list: (models, template) => ({ ...template, models }),
    nameTitle: "NAME",
  },

  terminal: {
    path: (request) => (request.stream ? `${geminiModelPath(request.model, "streamGenerateContent")}?alt=sse` : geminiModelPath(request.model, "generateContent")),
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
