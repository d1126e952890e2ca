import { contextLength, messagesOf, systemFirst } from "./chat-rules.js";
import type { Refusal, StrictKind } from "./core.js";
import { serverFixture } from "../kind-servers.js";

/**
 * The local servers the suite cannot run: vLLM, Ollama and LM Studio. Their model lists, error envelopes and
 * empty-body refusals come from the recorded fixtures in test/fixtures/kinds (each names its provenance); their
 * overflow wording from test/fixtures/context-overflow-errors.json.
 */

const modelsOf = (server: string): unknown => serverFixture(server).routes.find((route) => route.method === "GET" && route.path === "/v1/models")?.json;
const emptyBodyOf = (server: string): unknown => serverFixture(server).routes.find((route) => route.path === "/v1/chat/completions")?.emptyBody?.json;
const fixtureMessage = (server: string): string => {
  const body = emptyBodyOf(server) as { error: string | { message: string } };
  return typeof body.error === "string" ? body.error : body.error.message;
};

/** vLLM's words when the prompt alone does not fit (its serving layer), and when the prompt plus the output does not. */
export function vllmOverflow(prompt: number, completion: number, window: number): Refusal {
  if (prompt > window) return { message: `This model's maximum context length is ${window} tokens. However, your request has ${prompt} input tokens. Please reduce the length of the input messages.` };
  return {
    message: `This model's maximum context length is ${window} tokens. However, you requested ${completion} output tokens and your prompt contains at least ${prompt} input tokens, for a total of at least ${prompt + completion} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
  };
}

export const vllmKind: StrictKind = {
  name: "vllm",
  format: "chat",
  models: modelsOf("vllm"),
  contextWindow: 32768,
  envelope: (r) => ({ error: { message: r.message, type: "BadRequestError", param: null, code: r.status ?? 400 } }),
  rules: [
    systemFirst(
      "Qwen-family chat templates `raise_exception('System message must be at the beginning.')` (test/fixtures/kinds/vllm-system-first.json); vLLM answers a template error with create_error_response(f\"{e} {e.__cause__}\") (vllm-project/vllm vllm/entrypoints/openai/serving_chat.py, create_chat_completion), a 400 whose message ends in the absent cause, \"None\"",
      { message: "System message must be at the beginning. None" },
    ),
    contextLength("test/fixtures/context-overflow-errors.json (cases `vllm`, `vllm (serving layer)`); the window is the model list's `max_model_len`", vllmOverflow),
  ],
};

/** An empty `messages`, in the server's own words (its fixture's reply to `{}`). */
const emptyMessages = (server: string, source: string) => ({
  rule: "no messages",
  source,
  check: (body: Record<string, unknown>) => (messagesOf(body).length === 0 ? { message: fixtureMessage(server) } : undefined),
});

/** Ollama's overflow: only the excess, as an `api_error` (test/fixtures/context-overflow-errors.json, case `ollama`). */
export const ollamaOverflow = (prompt: number, _completion: number, window: number): Refusal | undefined =>
  prompt > window ? { message: `prompt too long; exceeded max context length by ${prompt - window} tokens`, type: "api_error" } : undefined;

export const ollamaKind: StrictKind = {
  name: "ollama",
  format: "chat",
  models: modelsOf("ollama"),
  contextWindow: 32768,
  envelope: (r) => ({ error: { message: r.message, type: r.type ?? "invalid_request_error", param: null, code: null } }),
  rules: [
    emptyMessages("ollama", "test/fixtures/kinds/ollama-routes.json (ollama/ollama middleware/openai.go: the JSON-schema check of `messages`)"),
    contextLength("test/fixtures/context-overflow-errors.json (case `ollama`)", ollamaOverflow),
  ],
};

/** LM Studio's overflow (test/fixtures/context-overflow-errors.json, case `lmstudio`). */
export const lmstudioOverflow = (prompt: number, _completion: number, window: number): Refusal | undefined =>
  prompt > window
    ? { message: `Trying to keep the first ${prompt} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input` }
    : undefined;

export const lmstudioKind: StrictKind = {
  name: "lmstudio",
  format: "chat",
  models: modelsOf("lmstudio"),
  contextWindow: 32768,
  envelope: (r) => ({ error: r.message }),
  rules: [
    emptyMessages("lmstudio", "test/fixtures/kinds/lmstudio-routes.json (LM Studio's reply to a body without `messages`)"),
    contextLength("test/fixtures/context-overflow-errors.json (case `lmstudio`)", lmstudioOverflow),
  ],
};
