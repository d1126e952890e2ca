import type { ErrorFields } from "../../errors/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { bearerToken } from "../bearer.js";
import { arrayOf, dateOf, secondsOf } from "../fields.js";
import { errorRenderer } from "../error-renderer.js";
import type { Family } from "../family-types.js";
import { chatModelList } from "./echo-models.js";
import { openAiUsage } from "./usage.js";

type Choice = { message?: { content?: unknown }; delta?: { content?: unknown } };

const errorBody = ({ message, type, param, code }: ErrorFields) => ({ error: { message, type, param, code } });

/**
 * OpenAI style: Chat Completions, Responses and everything else under `/v1/` (embeddings, files) that is not
 * claimed by the messages family. Bearer auth, `{"error":{...}}` envelope, `data:`-only error event.
 */
export const chatFamily: Family = {
  name: "chat",
  paths: {
    prefix: () => "",
    claim: (method, pathname) =>
      pathname.startsWith("/v1/") ? { rest: pathname, pathModel: undefined, lists: method === "GET" && pathname === "/v1/models" } : undefined,
    withModel: (rest) => rest,
  },

  auth: {
    presentedKey: (headers) => bearerToken(headers.authorization),
    queryKeys: () => [],
    keyHint: "Authorization: Bearer <key>",
    upstreamAuth: (key) => ({ authorization: `Bearer ${key}` }),
    upstreamQuery: (query) => query,
    defaultVersion: undefined,
    version: () => undefined,
  },

  errors: errorRenderer(errorBody),

  usage: openAiUsage,

  echo: { models: chatModelList, model: () => undefined },

  models: {
    path: "/v1/models",
    entries: (list) => arrayOf(list.data),
    row: (m) => ({ id: String(m.id ?? ""), name: String(m.owned_by ?? ""), created: dateOf(m.created), createdSeconds: secondsOf(m.created) }),
    entry: (id, _name, owner, createdSeconds) => ({ id, object: "model", created: createdSeconds ?? 0, owned_by: owner }),
    list: (entries, template) => ({ object: "list", ...template, data: entries }),
    nameTitle: "OWNER",
  },

  terminal: {
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
