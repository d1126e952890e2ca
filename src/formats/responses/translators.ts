import type { ClientSide } from "../../translate/types.js";
import { responsesReply } from "./reply.js";
import { responsesStream } from "./stream.js";
import { responsesToHub, type ResponsesHints } from "./to-hub.js";

/**
 * OpenAI Responses as a client format (Codex on a chat-only upstream): requests to the hub with tools from every
 * place Codex declares them, replies and streams back as Responses items and events.
 */
export const responsesClient: ClientSide<ResponsesHints> = {
  toHub: responsesToHub,
  replyFromHub: responsesReply,
  streamFromHub: responsesStream,
};

