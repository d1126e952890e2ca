import type { IncomingHttpHeaders } from "node:http";
import type { ErrorFields } from "../errors/index.js";
/** The four wire formats (SPEC section 10, Formats): what a body is, whichever family's path it came on. */
export type Format = "chat" | "responses" | "messages" | "gemini";


/**
 * The three API families (SPEC section 1): OpenAI's, Anthropic's and Google's. A family decides a path layout (which
 * segment it lives under), how a key is presented and sent, the error envelope and the model-list shape; a format
 * (`Format`) decides a body. The OpenAI family holds two formats, chat and responses.
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

/** What a family found at a local path; the family-neutral half of the client's endpoint. */
export interface Claim {
  kind: EndpointKind;
  /** The body's format, for `generate` and `count`. */
  format: Format | undefined;
  /** The path under the family's prefix, without the query: `/v1/messages`, `/v1beta/models/m:generateContent`. */
  rest: string;
  /** Required body fields; undefined for passthrough endpoints, whose bodies are not checked. */
  rules: readonly FieldRule[] | undefined;
  /** The model named by the path (Gemini `models/{model}:...`); `""` when the path names an empty one. */
  pathModel: string | undefined;
}

/** Token counts as the upstream reported them. */
export interface Usage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cacheReadTokens: number | undefined;
  cacheWriteTokens: number | undefined;
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

/** One row of `gateway models`. */
export interface ModelRow {
  id: string;
  name: string;
  created: string;
}

type Json = Record<string, unknown>;

/**
 * Everything that differs between the chat-completions, messages and Gemini styles. The server, the upstream
 * client, the echo upstream and `gateway chat` are written once against this table.
 */
export interface Family {
  readonly name: FamilyName;
  /** The base URL path of the family under a local or upstream origin: `""`, `/anthropic`, `/gemini` (`""` for an empty segment). */
  prefix(segments: Segments): string;
  /** Whether this family serves the (normalised) local path, and how; undefined when it does not. */
  claim(method: string, pathname: string, headers: IncomingHttpHeaders, segments: Segments): Claim | undefined;

  /** `rest` with the model it names replaced by `model` (Gemini's `models/{model}:...`); other families name it in the body. */
  withModel(rest: string, model: string): string;

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

  /** The JSON error body of this family. */
  errorBody(error: ErrorFields): unknown;
  /** One server-sent event that ends a broken stream in this family's format. */
  streamErrorEvent(error: ErrorFields): string;

  /** Merges the usage one reply object (or stream event) reports into `into`; later reports win. */
  readUsage(value: Json, into: Usage): void;
  /** Whether a stream event's raw text may carry usage, before it is parsed (cheap pre-filter). */
  readonly usageMarker: string;

  /** Model lists: where they are, how they read, and how an alias is added as an entry. */
  readonly models: {
    /** Path under the family prefix. */
    path: string;
    /** The entries of a list in this shape. */
    entries(list: Json): Json[];
    /** What `gateway models` shows of an entry (and what an entry converted to another shape keeps). */
    row(entry: Json): ModelRow;
    /** An entry in this shape for a model known by id and name (`owner`: who lists it, for the shapes that say so). */
    entry(id: string, name: string, owner: string): Json;
    /** A list in this shape holding `entries`, with the other fields of `template` (first and last ids made to fit). */
    list(entries: Json[], template: Json): Json;
  };

  /** How `gateway chat` talks in this family. */
  readonly chat: {
    /** Path under the family prefix. */
    path(request: ChatRequest): string;
    body(turns: readonly Turn[], request: ChatRequest): Json;
    replyText(reply: Json): string;
    streamPiece(event: string | undefined, data: string): StreamPiece;
  };
}
