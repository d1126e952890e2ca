import type { KindQuirks } from "./server-quirks.js";
import type { HubChunk, HubReply, HubRequest, Json, ReasoningField } from "./hub.js";

/**
 * The contract between the request path and the translators: each format that a client may speak implements
 * `ClientSide` (its requests to the hub, the hub's replies and streams back in its shape); each format that an
 * upstream may speak besides chat implements `UpstreamSide`. Everything here is pure: no I/O, no timers, no
 * clock but the injected ids, so tests drive every function directly.
 */

import type { ErrorFields } from "../errors/index.js";

export type { ErrorFields };

/** One server-sent event to write to the client. `data` is serialised as JSON, unless `raw` says it is the text to send (`[DONE]`). */
export interface ClientEvent {
  event?: string;
  data: unknown;
  raw?: boolean;
  /**
   * `data` already serialised, by a format's template for its commonest events (a text or argument delta): exactly
   * what `JSON.stringify(data)` gives, written without walking the object, which was a fifth of a translated
   * stream's own work. The test helpers check the equality on every event they see.
   */
  json?: string;
}

/**
 * One server-sent event as it was read from an upstream (after SSE decoding: comments dropped, data lines joined), its
 * data parsed once (`upstreamEventOf`): the usage is read from the same object the upstream's reader translates.
 */
export interface UpstreamEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/**
 * What the hub stream carries: chat chunks, or an upstream error that ends the stream. An error keeps the
 * upstream's own error object (`detail`) for the numbers some servers put beside their words (llama.cpp's
 * `n_prompt_tokens` and `n_ctx` on a context overflow).
 */
export type HubStreamItem = { type: "chunk"; chunk: HubChunk } | { type: "error"; error: ErrorFields; detail?: Record<string, unknown> };

/**
 * Hub stream -> one client format, as a state machine fed one item at a time. Every method returns the client
 * events to send now, in order (possibly none); after `finish` or `fail` it returns nothing more.
 */
export interface HubToClientStream {
  /** The events that open the stream (`message_start`, `response.created`), before any upstream chunk arrived. Called at most once; `push` calls it if nobody did. */
  start(): ClientEvent[];
  push(item: HubStreamItem): ClientEvent[];
  /** The upstream stream ended (EOF or `[DONE]`), with or without a finish reason: close by the format's grammar. */
  finish(): ClientEvent[];
  /** The upstream died or timed out: the format's error event, nothing after it. */
  fail(error: ErrorFields): ClientEvent[];
  /** The upstream has been silent for a while: what keeps the client from taking the stream for dead (a `ping`), or nothing. */
  keepAlive(): ClientEvent[];
}

/** One upstream format's stream -> hub items (chat chunks), as a state machine. */
export interface UpstreamToHubStream {
  push(event: UpstreamEvent): HubStreamItem[];
  /** The upstream stream ended: whatever the format's last event implies that was not said yet. */
  finish(): HubStreamItem[];
}

/** Signs reasoning (and the conversation summaries of Codex's compaction) the gateway passes to a client, and recognises it when the client sends it back. */
export interface ReasoningSeal {
  /** A signature for a thinking block holding `text`, recording the upstream field it came from. */
  sign(text: string, field: ReasoningField): string;
  /** The upstream field when `signature` is one this gateway made for `text`; undefined otherwise (a real Anthropic signature, a forgery). */
  verify(text: string, signature: string): ReasoningField | undefined;
  /** An opaque envelope holding `text` (a Responses reasoning item's `encrypted_content`). */
  seal(text: string, field: ReasoningField): string;
  /** The text and field of an envelope this gateway made; undefined for anything else. */
  open(envelope: string): { text: string; field: ReasoningField } | undefined;
  /** An opaque envelope holding a summary of a conversation (a Responses `compaction` item's `encrypted_content`, SPEC 11). */
  sealSummary(summary: string): string;
  /** The summary in an envelope this gateway made with `sealSummary`; undefined for anything else (a reasoning envelope, a forgery, an edit). */
  openSummary(envelope: string): string | undefined;
  /**
   * Whether a signature or envelope is in the gateway's format, made by this install or by another (a config
   * directory made anew, another machine): no provider makes one, and none of them can read one.
   */
  marks(value: string): boolean;
}

/** Makes ids; injected so tests are deterministic. `prefix` is the format's own (`msg_`, `toolu_`, `resp_`, `fc_`, `call_`). */
export type IdSource = (prefix: string) => string;

/** What a translation needs to know beyond the body. */
export interface TranslateContext {
  /** The model id the client asked for: every translated reply names it. */
  clientModel: string;
  /** The model id sent upstream (after aliases). */
  upstreamModel: string;
  /** The routed upstream's cap on output tokens (config `maxOutputTokens`). */
  maxOutputTokens?: number | undefined;
  /** The upstream model's context window, where its model list said it (vLLM's `max_model_len`): output is capped to what it leaves. */
  contextWindow?: number | undefined;
  /** Whether the upstream accepts chat's `reasoning_effort` (config `"reasoning": "effort"`). */
  reasoningEffort: boolean;
  /** Claude Code's per-turn billing line stays in the system prompt (`KindQuirks.billingHeader`); translated routes never keep it. */
  keepsBillingHeader: boolean;
  /** The routed upstream's kind's quirks (SPEC 11, Kinds): what a chat request for it changes (`formats/chat/hub-quirks.ts`). */
  quirks: KindQuirks;
  seal: ReasoningSeal;
  ids: IdSource;
  /** The path the client called, under its family's prefix: read by a format with more than one model-call path (Responses' compaction endpoint). */
  path?: string | undefined;
}

/**
 * What the request translation learned that the reply translation needs: which tools were custom or namespaced,
 * whether the client asked for thoughts or for usage in its stream. Filled by `toHub`, read by `fromHub*`.
 */
/**
 * What the reply side of every format is told about its request: the estimate of its input tokens (for Anthropic's
 * `message_start` before the upstream reports usage, Gemini's usage), which `translateRequest` makes where `toHub`
 * made none. Each format's own hints extend it, in its folder, as `ClientSide`'s type parameter.
 */
export interface ReplyHints {
  inputTokens?: number;
}

/** A client request translated to the hub, with what the reply side needs. */
export interface ToHub<H extends ReplyHints = ReplyHints> {
  request: HubRequest;
  hints: H;
}

/**
 * A format that clients speak: its requests go to the hub, the hub's replies come back in its shape. `H` is what its
 * `toHub` tells its reply side; the gateway carries it from one to the other without reading it.
 */
export interface ClientSide<H extends ReplyHints = ReplyHints> {
  /** The client's request body -> a chat request. Throws a `badRequest` ApiError for what cannot be translated (`previous_response_id`). */
  toHub(body: Json, ctx: TranslateContext): ToHub<H>;
  /** A whole chat reply -> the client's reply body. */
  replyFromHub(reply: HubReply, hints: H, ctx: TranslateContext): Json;
  /** A state machine that turns the hub stream into the client's events. */
  streamFromHub(hints: H, ctx: TranslateContext): HubToClientStream;
}

/** A format that upstreams speak besides chat: the hub's requests go out in it, its replies come back to the hub. */
export interface UpstreamSide {
  fromHub(request: HubRequest, ctx: TranslateContext): Json;
  replyToHub(reply: Json, ctx: TranslateContext): HubReply;
  streamToHub(ctx: TranslateContext): UpstreamToHubStream;
}

export type { HubChunk, HubReply, HubRequest, Json, ReasoningField };
