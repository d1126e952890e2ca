import { encodeEvents } from "../../../src/sse/sse.js";
import { startFakeUpstream, type Received, type Script, type ScriptedReply } from "../fake-upstream.js";

/**
 * The shared core of the strict fakes (issue 49 item 2): a server kind is a table of rules, each a piece of data
 * `{ rule, source, check }` that names what the real server refuses and where that fact comes from, plus the kind's
 * own error envelope. A strict fake runs the table over every generation request before the test's script answers,
 * so a test that passes against it sends only what the real server accepts.
 */

export type Json = Record<string, unknown>;

/** What a rule says when the request breaks it: the real server's status and words (the kind wraps them). */
export interface Refusal {
  /** 400 unless the server answers another. */
  status?: number;
  message: string;
  /** OpenAI's `param` and `code`; kinds whose envelope has no such field ignore them. */
  param?: string | null;
  code?: string | null;
  /** An error type other than the kind's usual one (Ollama's overflow is `api_error`). */
  type?: string;
  /** OpenRouter's `metadata` (the provider's own refusal, as `raw`). */
  metadata?: Json;
}

/** What a rule knows of the server besides the body: its context window, in tokens. */
export interface ServerLimits {
  readonly contextWindow: number;
}

/** One thing the real server refuses. */
export interface Rule {
  /** What it refuses, as a sentence. */
  readonly rule: string;
  /** Where that is shown: the server's code (repo + path), its docs, or an issue quoting the refusal. */
  readonly source: string;
  readonly check: (body: Json, limits: ServerLimits) => Refusal | undefined;
}

/** Which wire format a kind's generation endpoint speaks. */
export type StrictFormat = "chat" | "messages";

/** One kind of server, as its strict fake plays it. */
export interface StrictKind {
  readonly name: string;
  readonly format: StrictFormat;
  /** Its model list, answered to a GET on any path ending in `/models` (the kind's real path and shape). */
  readonly models: unknown;
  /** The context window its rules measure against unless a test gives another. */
  readonly contextWindow: number;
  /** The kind's error envelope around a refusal. */
  readonly envelope: (refusal: Refusal) => unknown;
  readonly rules: readonly Rule[];
}

/** The first rule the body breaks, in table order (the real servers stop at their first error too). */
export function firstRefusal(kind: StrictKind, body: Json, limits: ServerLimits = kind): Refusal | undefined {
  for (const rule of kind.rules) {
    const refusal = rule.check(body, limits);
    if (refusal) return refusal;
  }
  return undefined;
}

/** A refusal as the kind's server sends it. */
export const refusalReply = (kind: StrictKind, refusal: Refusal): ScriptedReply => ({ status: refusal.status ?? 400, json: kind.envelope(refusal) });

/** A prompt's size as the fakes count it: about four bytes of the messages (and system) a token, as models do. */
export function promptTokens(body: Json): number {
  return Math.ceil(JSON.stringify([body.system ?? null, body.messages ?? null, body.tools ?? null]).length / 4);
}

const isGeneration = (request: Received, format: StrictFormat) =>
  request.method === "POST" && request.path.endsWith(format === "chat" ? "/chat/completions" : "/v1/messages");

/** The kind's refusal of `request` as its server sends it, or undefined when the server would take it (or it generates nothing). */
export function refusalOf(kind: StrictKind, request: Received, limits: ServerLimits = kind): ScriptedReply | undefined {
  if (!isGeneration(request, kind.format)) return undefined;
  if (!request.body) return refusalReply(kind, { message: "We could not parse the JSON body of your request." });
  const refusal = firstRefusal(kind, request.body, limits);
  return refusal && refusalReply(kind, refusal);
}

/**
 * A script that answers as the kind's server: its model list on GET `.../models`, its refusal to a generation request
 * that breaks a rule, else what `answer` says (a test's exact bytes), by default a short reply that streams the way
 * the real server does.
 */
export function strictScript(kind: StrictKind, answer: Script = defaultReply, limits: ServerLimits = kind): Script {
  return (request) => {
    if (request.method === "GET" && request.path.endsWith("/models")) return { json: kind.models };
    return refusalOf(kind, request, limits) ?? answer(request);
  };
}

/** Starts a strict fake of `kind` on 127.0.0.1:0; `script` answers what it accepts. */
export function startStrictFake(kind: StrictKind, options: { script?: Script; contextWindow?: number } = {}) {
  const limits = { contextWindow: options.contextWindow ?? kind.contextWindow };
  return startFakeUpstream({ script: strictScript(kind, options.script, limits) });
}

const CREATED = 1700000000;

/**
 * The reply a strict fake gives when the test has none: "ok" in the request's format. A chat stream sends its usage
 * chunk only when `stream_options.include_usage` asked for it, then `[DONE]`, as OpenAI's API reference says and
 * vLLM, Ollama, DeepSeek and LM Studio do; a messages stream is Anthropic's event sequence.
 */
export const defaultReply: Script = (request) => {
  const body = request.body ?? {};
  const model = typeof body.model === "string" ? body.model : "unknown";
  if (request.path.endsWith("/v1/messages")) return messagesReply(model, body.stream === true);
  const usage = { prompt_tokens: promptTokens(body), completion_tokens: 1, total_tokens: promptTokens(body) + 1 };
  const base = { id: "chatcmpl-strict", created: CREATED, model };
  if (body.stream !== true) {
    return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage } };
  }
  const chunk = (choices: unknown[], extra: Json = {}) => ({ data: { ...base, object: "chat.completion.chunk", choices, ...extra } });
  const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  return {
    chunks: [
      encodeEvents([
        chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
        chunk([{ index: 0, delta: { content: "ok" }, finish_reason: null }]),
        chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
        ...(wantsUsage ? [chunk([], { usage })] : []),
        { data: "[DONE]", raw: true },
      ]),
    ],
  };
};

function messagesReply(model: string, stream: boolean): ScriptedReply {
  const usage = { input_tokens: 11, output_tokens: 1 };
  const message = { id: "msg_strict", type: "message", role: "assistant", model, content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_sequence: null, usage };
  if (!stream) return { json: message };
  const events = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 0 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: "message_stop" },
  ];
  return { chunks: [encodeEvents(events.map((data) => ({ event: data.type, data })))] };
}
