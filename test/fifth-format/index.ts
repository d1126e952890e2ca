import { chatFamily, type Format, type FormatClaim, type WireFormat } from "../../src/formats/index.js";
import { count, serverSentEvents, streamsWhenAsked } from "../../src/formats/fields.js";
import { onFirstUse } from "../../src/formats/on-first-use.js";

/**
 * A throw-away fifth format, for the test that the registry is the only list of formats (issue 48): OpenAI's legacy
 * Completions (`POST /v1/completions`, `{model, prompt}`), in the chat family, written as a format folder would be and
 * registered in the test process alone. Its usage leaves cached tokens outside `prompt_tokens` (`cacheInInput`),
 * unlike chat, so that a price computed as chat's shows pricing did not ask it. Its translators are chat's: the test
 * routes it as it came, and only asks what a translated route makes of an upstream that serves it alone.
 */

const isText = (value: unknown): boolean => typeof value === "string" && value !== "";

const GENERATE: FormatClaim = { kind: "generate", rules: [["model", "a string", isText], ["prompt", "a string", isText]] };

export const completionsFormat: WireFormat = {
  name: "completions" as Format,
  family: chatFamily,
  claim: (method, rest) => (method === "POST" && rest === "/v1/completions" ? GENERATE : undefined),
  streams: streamsWhenAsked,
  framing: serverSentEvents,
  generatePath: () => "/v1/completions",
  usage: {
    read(value, into) {
      const usage = value.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } } | undefined;
      if (!usage || typeof usage !== "object") return;
      into.inputTokens = count(usage.prompt_tokens) ?? into.inputTokens;
      into.outputTokens = count(usage.completion_tokens) ?? into.outputTokens;
      into.cacheReadTokens = count(usage.prompt_tokens_details?.cached_tokens) ?? into.cacheReadTokens;
    },
    marker: '"usage"',
    cacheInInput: false,
  },
  errors: chatFamily.errors,
  translators: onFirstUse(async () => ({ client: (await import("../../src/formats/chat/chat-client.js")).chatClient, upstream: undefined })),
  translatesInto: false,
  facts: { hasImage: () => false, tools: () => [], asksThinking: () => false, maxTokens: (body) => count(body.max_tokens), tagPlaces: () => [] },
  echo: onFirstUse(async () => (await import("../../src/formats/chat/echo.js")).chatEcho),
  count: undefined,
  startsEarly: false,
  wordUpstreamError: ({ fields }) => fields,
  passthroughQuirks: undefined,
};
