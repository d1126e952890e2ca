import type { IncomingHttpHeaders } from "node:http";
import type { GatewayErrorType } from "../errors/index.js";

/** The three wire styles the gateway serves. */
export type FamilyName = "chat" | "messages" | "gemini";

/** The configured path segments of the families that live under one. */
export interface Segments {
  /** `anthropic` unless configured. */
  messages: string;
  /** `gemini` unless configured. */
  gemini: string;
}

/** What an error looks like before it is put in a family's envelope. */
export interface ErrorFields {
  status: number;
  type: GatewayErrorType;
  message: string;
  param: string | null;
  code: string | null;
}

/** A required body field: its name, what it must be (for the 400 message) and the test. */
export type FieldRule = readonly [field: string, expected: string, test: (value: unknown) => boolean];

/** What a family found at a local path: where it goes upstream and what the gateway checks on the way. */
export interface Claim {
  /** Path under the upstream base, family prefix included, query not included. */
  upstreamPath: string;
  /** Required body fields; undefined for passthrough endpoints, whose bodies are not checked. */
  rules: readonly FieldRule[] | undefined;
  /** The model named by the path (Gemini `models/{model}:...`); `""` when the path names an empty one. */
  pathModel: string | undefined;
  /** The upstream's model list, which also lists the exact aliases. */
  isModelList: boolean;
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
  /** The base URL path of the family under a local or upstream origin: `""`, `/anthropic`, `/gemini`. */
  prefix(segments: Segments): string;
  /** Whether this family serves the (normalised) local path, and how; undefined when it does not. */
  claim(method: string, pathname: string, headers: IncomingHttpHeaders, segments: Segments): Claim | undefined;

  /** The local key the client presented, if any (the first of the family's key carriers that is present). */
  presentedKey(headers: IncomingHttpHeaders, query: string): string | undefined;
  /** The key headers of this family: each must not appear twice. */
  readonly keyHeaders: readonly string[];
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
    rows(list: Json): ModelRow[];
    /** The list with one entry per alias id appended. */
    withAliases(list: Json, aliases: readonly string[]): Json;
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
