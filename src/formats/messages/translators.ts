import type { ClientSide, UpstreamSide } from "../../translate/types.js";
import { messagesReplyFromHub } from "./reply-from-hub.js";
import { messagesReplyToHub } from "./reply-to-hub.js";
import { messagesFromHub } from "./request-from-hub.js";
import { messagesToHub, type MessagesHints } from "./request-to-hub.js";
import { messagesStreamFromHub } from "./stream-from-hub.js";
import { messagesStreamToHub } from "./stream-to-hub.js";

/** Anthropic Messages clients (Claude Code, the Anthropic SDKs) on an upstream that speaks another format. */
export const messagesClient: ClientSide<MessagesHints> = {
  toHub: messagesToHub,
  replyFromHub: messagesReplyFromHub,
  streamFromHub: messagesStreamFromHub,
};

/** Upstreams that speak only Anthropic Messages (chat clients such as Qwen Code or Aider in front of them). */
export const messagesUpstream: UpstreamSide = {
  fromHub: messagesFromHub,
  replyToHub: messagesReplyToHub,
  streamToHub: messagesStreamToHub,
};
