import { readFileSync } from "node:fs";
import { startFakeUpstream, type Received, type ScriptedReply } from "../fake-upstream.js";

/**
 * A strict LiteLLM proxy (1.81.12, the version issue 49 ran behind the gateway), built from LiteLLM's own code and
 * docs; the fixtures in `test/fixtures/litellm/` name their sources. What it does as the real one does:
 * - auth (`litellm/proxy/auth/user_api_key_auth.py`): without a master key every request passes, keyless included;
 *   with one, no key is 401 `auth_error`, the master key passes, any other key is looked up as a virtual key: without
 *   a database that is 400 `no_db_connection` "No connected db." (never 401), with one an unknown key is 401;
 * - `GET /v1/models` (and `/models`): OpenAI's list, every model `owned_by: "openai"`, `created: 1677610602`;
 * - `GET /model/info` (and `/v1/model/info`): `{"data": [{model_name, litellm_params, model_info}]}`;
 * - `GET /key/info`: `{"key": <the key itself>, "info": {spend, max_budget, budget_reset_at, ...}}`, and without a
 *   database its 400;
 * - `x-litellm-version` on every reply (`get_custom_headers` in `litellm/proxy/common_request_processing.py`), and
 *   the request's cost: `x-litellm-response-cost` on chat and Responses, `x-litellm-response-cost-original` (only) on
 *   messages, where `response_cost` is None and `get_custom_headers` leaves out a header whose value is "None";
 * - streams as `data:` lines only, and after the Responses events a trailing `data: [DONE]`
 *   (`async_sse_data_generator` in the same file ends every stream with it);
 * - `GET /health/liveliness` answers `"I'm alive!"` without a key.
 */

type Json = Record<string, unknown>;
const fixture = (name: string): Json => JSON.parse(readFileSync(new URL(`../../fixtures/litellm/${name}.json`, import.meta.url), "utf8")) as Json;
const ERRORS = fixture("errors") as Record<string, { status: number; json: unknown }>;
export const LITELLM_MODEL_INFO = fixture("model-info") as { data: { model_name: string; model_info: Json }[] };
export const LITELLM_KEY_INFO = (fixture("key-info") as { info: Json }).info;
export const LITELLM_VERSION = "1.81.12";
/** LiteLLM's `created` for every model of its list (it reports no date of its own). */
const LIST_CREATED = 1677610602;

export interface StrictLiteLLMOptions {
  /** `general_settings.master_key`; without one, every request passes. */
  masterKey?: string;
  /** With a database: the virtual keys it knows, each with its `/key/info`. Without: only the master key passes. */
  virtualKeys?: Record<string, Json>;
  /** Usage of every generation (LiteLLM prices it with the model's `model_info`). */
  usage?: { input: number; output: number };
  /** Its models (`/model/info`'s `data`; `/v1/models` lists the same names), read at each request: a test may add one. */
  models?: typeof LITELLM_MODEL_INFO.data;
  /** Holds a Responses stream before its `response.completed` event or its trailing `data: [DONE]` until `until` settles. */
  hold?: { before: "response.completed" | "[DONE]"; until: Promise<void> };
}

/** The cost LiteLLM reports for `model`: tokens times its `model_info` prices. */
export function litellmCost(model: string, usage: { input: number; output: number }, models = LITELLM_MODEL_INFO.data): number {
  const info = models.find((entry) => entry.model_name === model)!.model_info;
  return usage.input * (info.input_cost_per_token as number) + usage.output * (info.output_cost_per_token as number);
}

const bearer = (request: Received): string | undefined => {
  const value = request.headers.authorization ?? request.headers["x-api-key"];
  if (typeof value !== "string") return undefined;
  return value.startsWith("Bearer ") ? value.slice(7) : value;
};

const error = (name: string, model?: string): ScriptedReply => {
  const { status, json } = ERRORS[name]!;
  return { status, json: model === undefined ? json : JSON.parse(JSON.stringify(json).replace("MODEL", model)) };
};

const dataLines = (events: unknown[], done: boolean): string => `${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("")}${done ? "data: [DONE]\n\n" : ""}`;

function generation(request: Received, options: StrictLiteLLMOptions): ScriptedReply {
  const body = request.body ?? {};
  const model = typeof body.model === "string" ? body.model : "";
  const models = options.models ?? LITELLM_MODEL_INFO.data;
  if (!models.some((entry) => entry.model_name === model)) return error("invalidModel", model);
  const usage = options.usage ?? { input: 12, output: 5 };
  const cost = String(litellmCost(model, usage, models));
  const text = "hello from the team";
  if (request.path.endsWith("/messages")) {
    return {
      headers: { "x-litellm-response-cost-original": cost },
      json: { id: "msg_team", type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: usage.output } },
    };
  }
  if (request.path.endsWith("/responses")) {
    const response = { id: "resp_team", object: "response", model, status: "completed", output: [{ type: "message", id: "msg_team", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }], usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output } };
    if (body.stream !== true) return { headers: { "x-litellm-response-cost": cost }, json: response };
    const events = [
      { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [], usage: null } },
      { type: "response.output_text.delta", sequence_number: 1, item_id: "msg_team", output_index: 0, content_index: 0, delta: text },
      { type: "response.completed", sequence_number: 2, response },
    ];
    const { hold } = options;
    const chunks: (string | Promise<void>)[] =
      hold?.before === "response.completed" ? [dataLines(events.slice(0, -1), false), hold.until, dataLines(events.slice(-1), true)] : [dataLines(events, false), ...(hold ? [hold.until] : []), "data: [DONE]\n\n"];
    return { headers: { "content-type": "text/event-stream", "x-litellm-response-cost": cost }, chunks };
  }
  const completion = { id: "chatcmpl-team", object: "chat.completion", created: 1765000000, model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } };
  if (body.stream !== true) return { headers: { "x-litellm-response-cost": cost }, json: completion };
  const chunk = (delta: Json, finish: string | null) => ({ id: "chatcmpl-team", object: "chat.completion.chunk", created: 1765000000, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const usageChunk = { id: "chatcmpl-team", object: "chat.completion.chunk", created: 1765000000, model, choices: [], usage: completion.usage };
  return { headers: { "content-type": "text/event-stream", "x-litellm-response-cost": cost }, chunks: [dataLines([chunk({ role: "assistant", content: text }, null), chunk({}, "stop"), usageChunk], true)] };
}

function route(request: Received, options: StrictLiteLLMOptions, key: string | undefined): ScriptedReply {
  const { method, path } = request;
  const models = options.models ?? LITELLM_MODEL_INFO.data;
  if (method === "GET" && (path === "/v1/models" || path === "/models")) {
    return { json: { data: models.map((entry) => ({ id: entry.model_name, object: "model", created: LIST_CREATED, owned_by: "openai" })), object: "list" } };
  }
  if (method === "GET" && (path === "/model/info" || path === "/v1/model/info")) return { json: { data: models } };
  if (method === "GET" && path === "/key/info") {
    const info = key === undefined ? undefined : options.virtualKeys?.[key];
    if (!options.virtualKeys) return error("keyInfoNoDb");
    return { json: { key, info: info ?? LITELLM_KEY_INFO } };
  }
  if (method === "POST" && /^\/(v1\/)?(chat\/completions|responses|messages)$/.test(path)) return generation(request, options);
  return { status: 404, json: { detail: "Not Found" } };
}

/** LiteLLM's auth, in its order: no master key passes all; no key; the master key; a virtual key (database or not). */
function refusal(key: string | undefined, options: StrictLiteLLMOptions): ScriptedReply | undefined {
  if (options.masterKey === undefined) return undefined;
  if (key === undefined) return error("noKey");
  if (key === options.masterKey) return undefined;
  if (!options.virtualKeys) return error("noDb");
  return key in options.virtualKeys ? undefined : error("invalidKey");
}

/** Starts the strict LiteLLM on 127.0.0.1; `received` holds what it was sent. */
export async function startStrictLiteLLM(options: StrictLiteLLMOptions = {}) {
  return startFakeUpstream({
    script: (request) => {
      const reply = request.path === "/health/liveliness" ? { json: "I'm alive!" } : (refusal(bearer(request), options) ?? route(request, options, bearer(request)));
      return { ...reply, headers: { ...reply.headers, "x-litellm-version": LITELLM_VERSION } };
    },
  });
}

export type StrictLiteLLM = Awaited<ReturnType<typeof startStrictLiteLLM>>;
