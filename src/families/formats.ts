import type { Format } from "./types.js";
import { chatFamily } from "./chat.js";
import { geminiFamily, geminiModelPath } from "./gemini.js";
import { messagesFamily } from "./messages.js";
import type { Family } from "./types.js";

/** The family each format belongs to: its path layout, auth and error envelope. */
export const FORMAT_FAMILY: Readonly<Record<Format, Family>> = {
  chat: chatFamily,
  responses: chatFamily,
  messages: messagesFamily,
  gemini: geminiFamily,
};

/** Every format, in the order a translated request picks the first one an upstream serves (SPEC 10, Translation). */
export const TRANSLATION_ORDER: readonly Format[] = ["chat", "messages", "responses", "gemini"];

/** The path (under the family prefix, query included) of a model call in `format`. */
export function generatePath(format: Format, model: string, stream: boolean): string {
  switch (format) {
    case "chat":
      return "/v1/chat/completions";
    case "responses":
      return "/v1/responses";
    case "messages":
      return "/v1/messages";
    case "gemini":
      return stream ? `${geminiModelPath(model, "streamGenerateContent")}?alt=sse` : geminiModelPath(model, "generateContent");
  }
}
