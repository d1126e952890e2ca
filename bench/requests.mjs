// The requests every target gets, byte for byte the same: one per client format, streaming or not, with any model.
export const auth = {
  chat: (key) => ({ authorization: `Bearer ${key}` }),
  responses: (key) => ({ authorization: `Bearer ${key}` }),
  messages: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
  gemini: (key) => ({ "x-goog-api-key": key }),
};

export function pathOf(family, stream, model, query) {
  const q = query ? `?${query}` : "";
  if (family === "chat") return `/v1/chat/completions${q}`;
  if (family === "responses") return `/v1/responses${q}`;
  if (family === "messages") return `/anthropic/v1/messages${q}`;
  return stream ? `/gemini/v1beta/models/${model}:streamGenerateContent?alt=sse${query ? `&${query}` : ""}` : `/gemini/v1beta/models/${model}:generateContent${q}`;
}

function bodyOf(family, stream, model) {
  const s = stream ? { stream: true } : {};
  if (family === "chat") return JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...s });
  if (family === "responses") return JSON.stringify({ model, input: "hi", ...s });
  if (family === "messages") return JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...s });
  return JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
}

/**
 * `family` is the client's format (chat, responses, messages, gemini); `query` is extra query text, such as
 * `delay=20` for the fake upstream's chunk spacing (a translated request carries it in its model instead).
 */
export function requestFor({ family, stream, model = "m", query = "" }, key) {
  return {
    path: pathOf(family, stream, model, query),
    headers: { ...auth[family](key), "content-type": "application/json" },
    body: bodyOf(family, stream, model),
  };
}
