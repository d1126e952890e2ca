/** `Family`, the API a format lives in, as named parts that each do one job (docs/ARCHITECTURE.md, One home per wire format). */

import type { IncomingHttpHeaders } from "node:http";
import type { ErrorRenderer, FamilyName, PathClaim, ReplyShape, Segments, UsageReader } from "./types.js";

type Json = Record<string, unknown>;

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
  /** The query's values this family reads as a key (Gemini's `key=`; SPEC 3: elsewhere `key=` is an ordinary parameter). */
  queryKeys(query: string): string[];
  /** How to send the local key, for the 401 message. */
  readonly keyHint: string;
  /** Headers that carry the upstream key. */
  upstreamAuth(key: string): Record<string, string>;
  /** The query string to send upstream: credentials removed, everything else byte for byte. */
  upstreamQuery(query: string): string;
  /**
   * For a family whose requests carry a version header (`anthropic-version`, or `vendor-version`, required of its
   * clients and forwarded as `anthropic-version`): the version sent when neither the config nor the client names one
   * (Anthropic refuses a request without one). Undefined for a family without one.
   */
  readonly defaultVersion: string | undefined;
  /** The version header the client sent, in a family that has one. */
  version(headers: IncomingHttpHeaders): string | undefined;
}

/** One row of `gateway models`. */
export interface ModelRow {
  id: string;
  name: string;
  created: string;
  /** When the list says the model was made, in Unix seconds; undefined when it does not say. */
  createdSeconds?: number | undefined;
}

/** A family's model lists: where they are, how they read, and how an alias is added as an entry. */
export interface FamilyModels {
  /** Path under the family prefix. */
  readonly path: string;
  /** The entries of a list in this shape. */
  entries(list: Json): Json[];
  /** What `gateway models` shows of an entry (and what an entry converted to another shape keeps). */
  row(entry: Json): ModelRow;
  /**
   * An entry in this shape for a model known by id and name (`owner`: who lists it, for the shapes that say so;
   * `createdSeconds`: when it was made, for the shapes that say so, where the list it came from said).
   */
  entry(id: string, name: string, owner: string, createdSeconds?: number): Json;
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
