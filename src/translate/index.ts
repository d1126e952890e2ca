import { chatClient } from "./chat/chat-client.js";
import { chatUpstream } from "./chat/chat-upstream.js";
import { geminiClient } from "./gemini/index.js";
import { messagesClient, messagesUpstream } from "./messages/index.js";
import { responsesClient } from "./responses/index.js";
import type { ClientSide, Format, UpstreamSide } from "./types.js";

export type * from "./types.js";
export { translateRequest, type TranslatedRequest } from "./translate-request.js";
export { STREAM_END, upstreamEventOf } from "./upstream-event.js";

/** How each format's requests reach the hub and its replies come back (SPEC 10: messages, responses, gemini and chat clients). */
export const CLIENT_SIDES: Readonly<Record<Format, ClientSide>> = {
  chat: chatClient,
  messages: messagesClient,
  responses: responsesClient,
  gemini: geminiClient,
};

/** The formats a translated request can be sent in, each with how the hub's requests become it. */
export const UPSTREAM_SIDES: Readonly<Partial<Record<Format, UpstreamSide>>> = {
  chat: chatUpstream,
  messages: messagesUpstream,
};
