import type { Family } from "./types.js";
import { bearerToken } from "./bearer.js";

/** OpenAI Chat Completions style: bearer auth, `{"error":{...}}` envelope, `data:`-only error event. */
export const chatFamily: Family = {
  name: "chat",
  upstreamPrefix: () => "",
  presentedKey: (headers) => bearerToken(headers.authorization),
  upstreamAuth: (key) => ({ authorization: `Bearer ${key}` }),
  errorBody: ({ message, type, param, code }) => ({ error: { message, type, param, code } }),
  streamErrorEvent(error) {
    return `data: ${JSON.stringify(this.errorBody(error))}\n\n`;
  },
};
