import { isArray } from "../fields.js";
import type { FormatClaim, WireFormat } from "../format-types.js";
import { onFirstUse } from "../on-first-use.js";
import type { FieldRule } from "../types.js";
import { geminiFacts } from "./facts.js";
import { geminiFamily, geminiModelPath, geminiUsage, modelMethod } from "./family.js";
import { countTokensRequest } from "./gemini-fields.js";

const GENERATE_RULES: readonly FieldRule[] = [["contents", "an array", isArray]];
const GENERATE: FormatClaim = { kind: "generate", rules: GENERATE_RULES };
const COUNT: FormatClaim = { kind: "count", rules: undefined };

/** Google's Generative Language API: `models/{m}:generateContent`, `:streamGenerateContent` and `:countTokens`. */
export const geminiFormat: WireFormat = {
  name: "gemini",
  family: geminiFamily,
  claim(method, rest) {
    if (method !== "POST") return undefined;
    const named = modelMethod(rest)?.method;
    return named === "generateContent" || named === "streamGenerateContent" ? GENERATE : named === "countTokens" ? COUNT : undefined;
  },
  // A Gemini body does not say whether it streams; the method does.
  streams: (rest) => rest.endsWith(":streamGenerateContent"),
  // Gemini streams a JSON array to a client that leaves out `alt=sse`.
  framing: (query) => (new URLSearchParams(query).get("alt") === "sse" ? "sse" : "json-array"),
  generatePath: (model, stream) => (stream ? `${geminiModelPath(model, "streamGenerateContent")}?alt=sse` : geminiModelPath(model, "generateContent")),
  usage: geminiUsage,
  errors: geminiFamily.errors,
  facts: geminiFacts,
  translators: onFirstUse(async () => ({ client: (await import("./translators.js")).geminiClient, upstream: undefined })),
  translatesInto: false,
  echo: onFirstUse(async () => (await import("./echo.js")).geminiEcho),
  count: { request: countTokensRequest, reply: (tokens) => ({ totalTokens: tokens }) },
  startsEarly: false,
  wordUpstreamError: ({ fields }) => fields,
  passthroughQuirks: undefined,
};
