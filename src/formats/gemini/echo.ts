import { ANY_OBJECT, echoId, estimateTokens, objectAt, streamPieces, type EchoTurn } from "../echo-turn.js";
import type { FormatEcho } from "../format-types.js";

/** Gemini-style replies of the echo upstream (generateContent, streamGenerateContent, models). */

const responseId = () => echoId("", 22);

function usageMetadata(turn: EchoTurn, outputTokens: number) {
  return { promptTokenCount: turn.inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: turn.inputTokens + outputTokens };
}

function chunk(text: string, model: string, id: string, last: { usage: ReturnType<typeof usageMetadata> } | undefined) {
  return {
    candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    ...(last ? { usageMetadata: last.usage } : {}),
    modelVersion: model,
    responseId: id,
  };
}

export function generateContent(turn: EchoTurn) {
  return chunk(turn.text, turn.model, responseId(), { usage: usageMetadata(turn, estimateTokens(turn.text)) });
}

/**
 * The stream as Google sends it with `alt=sse`: one `data:` event per piece, `\r\n\r\n` between events, the last
 * one carrying `finishReason` and `usageMetadata`.
 */
export function generateContentEvents(turn: EchoTurn): string[] {
  const id = responseId();
  const pieces = streamPieces(turn.text);
  const usage = usageMetadata(turn, estimateTokens(turn.text));
  return pieces.map((piece, i) => `data: ${JSON.stringify(chunk(piece, turn.model, id, i === pieces.length - 1 ? { usage } : undefined))}\r\n\r\n`);
}

/** Without `alt=sse` Google streams one JSON array of the same chunks. */
export function generateContentArray(turn: EchoTurn): string {
  return `[${generateContentEvents(turn)
    .map((event) => event.slice("data: ".length).trimEnd())
    .join(",\r\n")}]`;
}

/** Gemini's REST API takes its fields in camelCase and in snake_case alike. */
const either = (body: Record<string, unknown> | undefined, camel: string, snake: string): unknown => body?.[camel] ?? body?.[snake];

/**
 * How the echo upstream answers a generateContent or streamGenerateContent call (structured output asked with
 * `generationConfig.responseMimeType: application/json` and `responseJsonSchema` or `responseSchema`).
 */
export const geminiEcho: FormatEcho = {
  requestedSchema(body) {
    const config = objectAt(body, "generationConfig") ?? objectAt(body, "generation_config");
    const mime = either(config, "responseMimeType", "response_mime_type");
    if (typeof mime !== "string" || !mime.toLowerCase().startsWith("application/json")) return undefined;
    return either(config, "responseJsonSchema", "response_json_schema") ?? either(config, "responseSchema", "response_schema") ?? ANY_OBJECT;
  },
  answer(turn, { stream, query }) {
    if (!stream) return { json: generateContent(turn) };
    if (new URLSearchParams(query).get("alt") === "sse") return { events: generateContentEvents(turn) };
    return { text: generateContentArray(turn), contentType: "application/json; charset=UTF-8" };
  },
};
