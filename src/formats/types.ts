import type { IncomingHttpHeaders } from "node:http";
import type { ErrorFields } from "../errors/index.js";
import type { ClientSide, UpstreamSide } from "../translate/types.js";
import type { UpstreamErrorRead } from "../translate/upstream-error-reply.js";
import type { EchoTurn } from "./echo-turn.js";
import type { Format } from "./names.js";

export type { Format };

type Json = Record<string, unknown>;

/**
 * The three API families (SPEC section 1): OpenAI's, Anthropic's and Google's. A family is the API a format lives
 * in: its path layout (which segment it lives under), how a key is presented and sent, its error envelope and its
 * model-list shape; a format (`WireFormat`) decides a body. The OpenAI family holds two formats, chat and responses.
 */
export type FamilyName = "chat" | "messages" | "gemini";

/** The configured path segments of the families that live under one; `""` puts a family directly under the base. */
export interface Segments {
  /** `anthropic` unless configured. */
  messages: string;
  /** `gemini` unless configured. */
  gemini: string;
}

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
}

/** How an error is put in a shape: the JSON body of an answer, and the one server-sent event that ends a broken stream. */
export interface ErrorRenderer {
  body(error: ErrorFields): unknown;
  streamEvent(error: ErrorFields): string;
}

/**
 * How the bytes of a reply relayed as they came are read and ended: the usage they report, and the error event that
 * ends them when they break. A format's, or its family's at a path no format claims.
 */
export interface ReplyShape {
  readonly usage: UsageReader;
  readonly errors: ErrorRenderer;
}

/** Where a family lives and which local paths are its own. */
export interface FamilyPaths {
  /** The base URL path of the family under a local or upstream origin: `""`, `/anthropic`, `/gemini` (`""` for an empty segment). */
  prefix(segments: Segments): string;
  /** Whether this family serves the (normalised) local path, and what it found there; undefined when it does not. */
  claim(method: string, pathname: string, headers: IncomingHttpHeaders, segments: Segments): PathClaim | undefined;
  /** `rest` with the model it names replaced by `model` (Gemini's `models/{model}:...`); other families name it in the body. */
  withModel(rest: string, model: string): string;
}

/** How a family's key is presented by a client and sent upstream. */
export interface FamilyAuth {
  /** The local key the client presented, if any (the first of the family's key carriers that is present). */
  presentedKey(headers: IncomingHttpHeaders, query: string): string | undefined;
  /** How to send the local key, for the 401 message. */
  readonly keyHint: string;
  /** Headers that carry the upstream key. */
  upstreamAuth(key: string): Record<string, string>;
  /** The query string to send upstream: credentials removed, everything else byte for byte. */
  upstreamQuery(query: string): string;
  /** Whether requests must carry `anthropic-version` (or `vendor-version`), which is forwarded as `anthropic-version`. */
  readonly needsVersion: boolean;
  /** The version header the client sent, in a family that has one. */
  version(headers: IncomingHttpHeaders): string | undefined;
}

/** One row of `gateway models`. */
export interface ModelRow {
  id: string;
  name: string;
  created: string;
}

/** A family's model lists: where they are, how they read, and how an alias is added as an entry. */
export interface FamilyModels {
  /** Path under the family prefix. */
  readonly path: string;
  /** The entries of a list in this shape. */
  entries(list: Json): Json[];
  /** What `gateway models` shows of an entry (and what an entry converted to another shape keeps). */
  row(entry: Json): ModelRow;
  /** An entry in this shape for a model known by id and name (`owner`: who lists it, for the shapes that say so). */
  entry(id: string, name: string, owner: string): Json;
  /** A list in this shape holding `entries`, with the other fields of `template` (first and last ids made to fit). */
  list(entries: Json[], template: Json): Json;
  /** The title of `ModelRow.name` in `gateway models`: who owns a model, or its display name. */
  readonly nameTitle: string;
}

/** One turn of a terminal conversation. */
export interface Turn {
  role: "user" | "assistant";
  content: string;
}

/** What `gateway chat` asks for, whatever the family. */
export interface ChatRequest {
  model: string;
  system: string | undefined;
  maxTokens: number | undefined;
  stream: boolean;
}

/** What one stream event contributes: text, an upstream error, or nothing. */
export type StreamPiece = { text: string } | { error: string } | undefined;

/** How `gateway chat` talks in a family. */
export interface Terminal {
  /** Path under the family prefix. */
  path(request: ChatRequest): string;
  body(turns: readonly Turn[], request: ChatRequest): Json;
  replyText(reply: Json): string;
  streamPiece(event: string | undefined, data: string): StreamPiece;
}

/** What the offline echo upstream lists in a family's shape. */
export interface FamilyEcho {
  /** Its model list. */
  models(): Json;
  /** One model, for a family that serves `GET models/{model}` (a path under the prefix); undefined for any other path. */
  model(rest: string): Json | undefined;
}

/**
 * Everything that differs between OpenAI's, Anthropic's and Google's APIs, as named parts so two families compare
 * part by part. The server, the upstream client, the echo upstream and `gateway chat` are written once against it.
 */
export interface Family extends ReplyShape {
  readonly name: FamilyName;
  readonly paths: FamilyPaths;
  readonly auth: FamilyAuth;
  /** Its envelope, and its stream error event. */
  readonly errors: ErrorRenderer;
  readonly models: FamilyModels;
  readonly terminal: Terminal;
  readonly echo: FamilyEcho;
  /** The usage of a reply at a path none of the family's formats claims (embeddings, a stored response), relayed as it came. */
  readonly usage: UsageReader;
}

/**
 * How a translated stream is framed for its client: server-sent events, or the JSON array Gemini streams when a
 * client leaves out `alt=sse` (`[{...},\r\n{...}]`, each element an event's data, written as it comes).
 */
export type StreamFraming = "sse" | "json-array";

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
  /** The texts a route tag may open: each text of its system prompt, then its first user message's. */
  leadingTexts(body: Json): string[];
}

/** A model call as the echo upstream reads it. */
export interface EchoCall {
  body: Json;
  /** Whether it asks for a stream (`WireFormat.streams`). */
  stream: boolean;
  /** The request's query string (`?alt=sse`). */
  query: string;
}

/** What the echo upstream answers: a JSON body, server-sent events, or other text (Gemini's JSON-array stream). */
export type EchoAnswer = { json: unknown } | { events: string[] } | { text: string; contentType: string };

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
  /** How this format's requests reach the hub and its replies come back. */
  readonly client: ClientSide;
  /** How the hub's requests are sent in this format, for formats a translated request can go out in. */
  readonly upstream: UpstreamSide | undefined;
  /** What a request in this format says about itself (images, tools, reasoning, where a route tag may be). */
  readonly facts: RequestFacts;
  /** The offline echo upstream's answer to a model call in this format. */
  echo(turn: EchoTurn, call: EchoCall): EchoAnswer;
  /** The token count the gateway answers itself, for formats that have a count endpoint. */
  readonly count: LocalCount | undefined;
  /**
   * A translated stream to this client starts before a slow upstream answers (`EARLY_START_MS`): Claude Code takes
   * a stream that says nothing for long for a dead one (SPEC 10, Details).
   */
  readonly startsEarly: boolean;
  /** An upstream's error reply as this format's clients expect it worded on a translated route (SPEC 10 rule 5). */
  wordUpstreamError(read: UpstreamErrorRead): ErrorFields;
  /** Sent in this format, the request reaches a provider of Anthropic's own: Claude Code's billing line stays in its system prompt. */
  readonly keepsBillingHeader: boolean;
}
