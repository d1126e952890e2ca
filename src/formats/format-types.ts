/** `WireFormat`, one format's descriptor, and the endpoint a request claims in it. */

import type { ErrorFields } from "../errors/index.js";
import type { KindQuirks } from "../translate/server-quirks.js";
import type { ClientSide, UpstreamSide } from "../translate/types.js";
import type { UpstreamErrorRead } from "../translate/upstream-error-reply.js";
import type { EchoTurn } from "./echo-turn.js";
import type { BodyPath } from "./fields.js";
import type { Family } from "./family-types.js";
import type { EndpointKind, ErrorRenderer, FieldRule, Format, ReplyShape, StreamFraming, UsageReader } from "./types.js";

type Json = Record<string, unknown>;

/** A model call or a token count that a format claims at a path of its family's namespace. */
export interface FormatClaim {
  kind: "generate" | "count";
  /** Required body fields; undefined for calls whose bodies are not checked (SPEC section 3.5). */
  rules: readonly FieldRule[] | undefined;
}

/** What the client asked for, in its own family and format (SPEC sections 2 and 10): read by everything on the client's side. */
export interface Endpoint {
  family: Family;
  /** The body's format, for `generate` and `count`. */
  format: WireFormat | undefined;
  kind: EndpointKind;
  /** The path under the family's prefix, without the query. */
  rest: string;
  /** Required body fields; undefined for passthrough endpoints, whose bodies are not checked. */
  rules: readonly FieldRule[] | undefined;
  /** The model named by the path (Gemini); `""` when the path names an empty one. */
  pathModel: string | undefined;
}

/** How a token count the gateway makes itself (SPEC 10 rule 6) reads its request and says its answer. */
export interface LocalCount {
  /** The model call inside a count request's body, as the format's client side translates it. */
  request(body: Json): Json;
  /** The answer holding `tokens`. */
  reply(tokens: number): Json;
}

/**
 * What a request in a format says about itself, for routing by what a request is (SPEC 11, Routes): each read from
 * the parsed body, on demand (`ClientRequest` asks and keeps the answer).
 */
export interface RequestFacts {
  /** Whether it holds an image anywhere in its conversation, tool results included. */
  hasImage(body: Json): boolean;
  /** The names of the tools it declares; a hosted tool (web search) by its type. */
  tools(body: Json): string[];
  /** Whether it asks for reasoning. */
  asksThinking(body: Json): boolean;
  /** The output-token cap it asks for, when it sets one (a span's `gen_ai.request.max_tokens`, SPEC 12). */
  maxTokens(body: Json): number | undefined;
  /**
   * Where a route tag may open a text: each text of its system prompt, then each text part of its first user message
   * (Claude Code puts `<system-reminder>` parts before a subagent's prompt).
   */
  tagPlaces(body: Json): BodyPath[];
}

/** A model call as the echo upstream reads it. */
export interface EchoCall {
  body: Json;
  /** The path after the family's prefix (`/v1/responses/compact`). */
  rest: string;
  /** Whether it asks for a stream (`WireFormat.streams`). */
  stream: boolean;
  /** The request's query string (`?alt=sse`). */
  query: string;
}

/** What the echo upstream answers: a JSON body, server-sent events, or other text (Gemini's JSON-array stream). */
export type EchoAnswer = { json: unknown } | { events: string[] } | { text: string; contentType: string };

/** How the offline echo upstream answers a model call in a format. */
export interface FormatEcho {
  /** The schema a request asks its reply to fit (structured output): a JSON schema, `ANY_OBJECT`, or undefined for text. */
  requestedSchema(body: Json): unknown;
  /** The answer holding `turn`. */
  answer(turn: EchoTurn, call: EchoCall): EchoAnswer;
}

/** A part of a format loaded on its first use: `load()` imports it once; `loaded` holds it from then on, undefined before. */
export interface OnFirstUse<T> {
  readonly loaded: T | undefined;
  load(): Promise<T>;
}

/** A format's translators: how its requests reach the hub and its replies come back, and how the hub's requests go out in it. */
export interface FormatTranslators {
  readonly client: ClientSide;
  /** For formats a translated request can go out in; undefined for a client format only. */
  readonly upstream: UpstreamSide | undefined;
}

/**
 * One wire format (SPEC section 10, Formats): what it claims in its family's namespace, how its bodies stream and
 * report usage, its translators, and the few choices the gateway makes differently for it. The server asks this
 * descriptor; nothing outside `src/formats/` compares a format's name.
 */
export interface WireFormat extends ReplyShape {
  readonly name: Format;
  readonly family: Family;
  /** The model call or count at `rest` (a path of the family's namespace), if this format claims it. */
  claim(method: string, rest: string): FormatClaim | undefined;
  /** Whether a model call asks for a stream: a body's `"stream": true`, or Gemini's `:streamGenerateContent`. */
  streams(rest: string, body: Json | undefined): boolean;
  /** How a translated stream to a client of this format is framed, given the request's query. */
  framing(query: string): StreamFraming;
  /** The path (under the family prefix, query included) of a model call in this format. */
  generatePath(model: string, stream: boolean): string;
  readonly usage: UsageReader;
  /** The family's envelope; the stream error event is the format's where it differs from the family's. */
  readonly errors: ErrorRenderer;
  /**
   * Its translators, imported by the first request that needs them (`onFirstUse`): a stage awaits `load()`, and
   * what runs after it reads `loaded`. A request passed through as it came loads none.
   */
  readonly translators: OnFirstUse<FormatTranslators>;
  /** Whether a translated request can go out in this format: its translators' `upstream` is defined (read before they load). */
  readonly translatesInto: boolean;
  /** What a request in this format says about itself (images, tools, reasoning, where a route tag may be). */
  readonly facts: RequestFacts;
  /** How the offline echo upstream answers a model call in this format, imported by the echo's first model call. */
  readonly echo: OnFirstUse<FormatEcho>;
  /** The token count the gateway answers itself, for formats that have a count endpoint. */
  readonly count: LocalCount | undefined;
  /**
   * A translated stream to this client starts before a slow upstream answers (`EARLY_START_MS`): Claude Code takes
   * a stream that says nothing for long for a dead one (SPEC 10, Details).
   */
  readonly startsEarly: boolean;
  /** An upstream's error reply as this format's clients expect it worded on a translated route (SPEC 10 rule 5). */
  wordUpstreamError(read: UpstreamErrorRead): ErrorFields;
  /** What a request in this format sent as it came changes for an upstream's kind; undefined: nothing, for any kind. */
  readonly passthroughQuirks: PassthroughQuirks | undefined;
}

/**
 * A passthrough request for an upstream of a kind (SPEC 11, Kinds). Asked first whether the kind needs anything at
 * all, so that a request to any other kind is neither parsed again nor copied: its bytes go as they came.
 */
export interface PassthroughQuirks {
  applies(quirks: KindQuirks): boolean;
  /**
   * The request for that kind: `headers` (the gateway's own copy, bound upstream) changed in place, and the body
   * returned when it changed; undefined when it did not, so its bytes go as they came. `body` is never changed.
   */
  apply(quirks: KindQuirks, headers: Record<string, string | string[]>, body: Json): Json | undefined;
}
