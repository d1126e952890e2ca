import type { Family } from "./types.js";
import { bearerToken } from "./bearer.js";

/** The version sent upstream by our own client when the user has not pinned one. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/**
 * Anthropic Messages style: `x-api-key` (bearer accepted locally too), `{"type":"error",...}` envelope,
 * `event: error` stream event.
 */
export const messagesFamily: Family = {
  name: "messages",
  upstreamPrefix: (segment) => `/${segment}`,
  presentedKey: (headers) => {
    const apiKey = headers["x-api-key"];
    return (typeof apiKey === "string" && apiKey) || bearerToken(headers.authorization);
  },
  upstreamAuth: (key) => ({ "x-api-key": key }),
  errorBody: ({ type, message }) => ({ type: "error", error: { type, message } }),
  streamErrorEvent(error) {
    return `event: error\ndata: ${JSON.stringify(this.errorBody(error))}\n\n`;
  },
};
