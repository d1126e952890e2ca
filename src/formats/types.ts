/** The vocabulary every family and format shares: names, segments, body rules, usage, error renderers. */

import type { ErrorFields } from "../errors/index.js";
import type { SseOut } from "../sse/sse.js";
import type { FamilyName, Format } from "./names.js";

export type { FamilyName, Format };

type Json = Record<string, unknown>;

/** The configured path segments of the families that live under one; `""` puts a family directly under the base. */
export interface Segments {
  /** `anthropic` unless configured. */
  messages: string;
  /** `gemini` unless configured. */
  gemini: string;
}

/**
 * How a translated stream is framed for its client: server-sent events, or the JSON array Gemini streams when a
 * client leaves out `alt=sse` (`[{...},\r\n{...}]`, each element an event's data, written as it comes).
 */
export type StreamFraming = "sse" | "json-array";

/** A required body field: its name, what it must be (for the 400 message) and the test. */
export type FieldRule = readonly [field: string, expected: string, test: (value: unknown) => boolean];

/**
 * What the client asked for, read from a local path (SPEC sections 2 and 10): a model call in one format, a token
 * count, a model list, or anything else (embeddings, files), which is forwarded as it is and never translated.
 */
export type EndpointKind = "generate" | "count" | "models" | "other";

/** What a family found at a local path in its namespace. */
export interface PathClaim {
  /** The path under the family's prefix, without the query: `/v1/messages`, `/v1beta/models/m:generateContent`. */
  rest: string;
  /** The model named by the path (Gemini `models/{model}:...`); `""` when the path names an empty one. */
  pathModel: string | undefined;
  /** Whether it is the family's model list. */
  lists: boolean;
}

/** Token counts as the upstream reported them. */
export interface Usage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
}

/** How a reply's usage is read, in one format's convention. */
export interface UsageReader {
  /** Merges the usage one reply object (or stream event) reports into `into`; later reports win. */
  read(value: Json, into: Usage): void;
  /** The quoted key whose presence in an event's raw text says it may carry usage, before it is parsed: `"usage"`. */
  readonly marker: string;
  /**
   * Whether its input count holds the tokens read from and written to the prompt cache (chat's `prompt_tokens`,
   * Gemini's `promptTokenCount`); false where they are counted apart (Anthropic's `input_tokens`). Pricing reads it
   * (SPEC section 6, Tokens).
   */
  readonly cacheInInput: boolean;
  /**
   * For a format whose streams report usage only when asked (chat without `stream_options.include_usage`): whether
   * a request's stream will report none (`body` parses it, where the bytes alone cannot tell), and the characters of
   * text, reasoning and tool calls one of its events relays, from which the gateway estimates the output tokens of
   * such a stream (SPEC 11, Budgets).
   */
  readonly unreported?: {
    streamWithout(bytes: Buffer | undefined, body: () => Json | undefined): boolean;
    relayedChars(event: Json): number;
  };
  /**
   * The characters of text, reasoning and tool calls a whole JSON reply carries, for a reply from a server that
   * reports no usage (SPEC 11, Budgets: its output is estimated from them). Chat only: the other formats' servers
   * report usage in every JSON reply (Anthropic's `usage`, Gemini's `usageMetadata`, a Responses `usage`).
   */
  replyChars?(reply: Json): number;
}

/**
 * How an error is put in a family's shape (`error-renderer.ts` makes each): the JSON body of an answer, and the one
 * server-sent event that ends a broken stream, as an event a translated stream writes and as the bytes a relayed one
 * ends with.
 */
export interface ErrorRenderer {
  body(error: ErrorFields): unknown;
  /** `body` serialised: what a JSON answer sends. */
  json(error: ErrorFields): string;
  event(error: ErrorFields): SseOut;
  streamEvent(error: ErrorFields): string;
}

/**
 * How the bytes of a reply relayed as they came are read and ended: the usage they report, and the error event that
 * ends them when they break. A format's, or its family's at a path no format claims.
 */
export interface ReplyShape {
  readonly usage: UsageReader;
  readonly errors: ErrorRenderer;
  /**
   * The quoted event types whose event ends a complete stream when more may follow it (Responses: a LiteLLM sends
   * `data: [DONE]` after `response.completed`); a client that leaves once one of them reached it left a complete
   * reply. Undefined where the stream's last event is its end.
   */
  readonly streamEnd?: readonly string[];
}
