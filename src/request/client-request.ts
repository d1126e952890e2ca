import type { IncomingHttpHeaders } from "node:http";
import type { Endpoint } from "../formats/index.js";

type Json = Record<string, unknown>;

/**
 * The request as the client sent it, read once (`server/stages/read-request.ts`) and checked: what routing and
 * translation start from. A class, so that facts a router may ask are answered on demand and kept, and nothing is
 * computed for a request that no one asks about.
 */
export class ClientRequest {
  /** What the client asked for, in its own family and format. */
  readonly endpoint: Endpoint;
  /** The query string as it came (`?beta=true`), `""` for none. */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** The body bytes exactly as they came (what a passthrough route sends on); undefined when there was none. */
  readonly bytes: Buffer | undefined;
  /** The body parsed, for model calls and counts; undefined for passthrough paths, whose bodies are not parsed. */
  readonly json: Json | undefined;
  /** The model the request names: the Gemini path's, else the body's `model`; undefined when it names none. */
  readonly model: string | undefined;
  /** Whether a model call asked for a stream (`"stream": true`, or Gemini's `:streamGenerateContent`). */
  readonly stream: boolean;

  constructor(endpoint: Endpoint, query: string, headers: IncomingHttpHeaders, bytes: Buffer | undefined, json: Json | undefined, model: string | undefined, stream: boolean) {
    this.endpoint = endpoint;
    this.query = query;
    this.headers = headers;
    this.bytes = bytes;
    this.json = json;
    this.model = model;
    this.stream = stream;
  }
}
