import type { IncomingMessage } from "node:http";
import { parseJsonObject } from "../../parse-json.js";
import { findTopLevelString } from "../json-scan.js";
import { checkBody } from "./check-body.js";
import { readBody } from "./read-body.js";
import type { Endpoint } from "../../formats/index.js";

/** The request as the client sent it, read and checked: what routing and translation start from. */
export interface ClientRequest {
  /** The body bytes exactly as they came (what a passthrough route sends on); undefined when there was none. */
  bytes: Buffer | undefined;
  /** The body parsed, for the endpoints whose bodies are checked (model calls and counts); undefined for passthrough paths. */
  json: Record<string, unknown> | undefined;
  /** The model the request names: the Gemini path's, else the body's `model`; undefined when it names none. */
  model: string | undefined;
  /** Whether a model call or count asked for a stream (`"stream": true`, or Gemini's `:streamGenerateContent`). */
  stream: boolean;
}

const NO_BODY_METHODS = new Set(["GET", "HEAD"]);

function hasBody(req: IncomingMessage): boolean {
  return !NO_BODY_METHODS.has(req.method ?? "GET") || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

const looksLikeJsonObject = (body: Buffer | undefined): body is Buffer => body !== undefined && body.length > 1 && body.includes(0x7b);

/**
 * Stage 5: reads the whole body (32 MiB, the slow-loris deadline), checks the known endpoints' bodies (SPEC section
 * 3.5), and finds the model it names. Bodies of unchecked paths are scanned for a top-level `model` without parsing.
 */
export async function readRequest(req: IncomingMessage, endpoint: Endpoint, maxBytes: number, deadlineMs: number): Promise<ClientRequest> {
  const bytes = hasBody(req) ? await readBody(req, maxBytes, deadlineMs) : undefined;
  // Model calls without body rules (`/v1/responses`, Gemini's `:countTokens`) are still read, leniently: a route may
  // translate them, and whether they stream is in the body. What does not parse goes on as it came.
  const json = checkBody(endpoint, req.headers["content-type"], bytes) ?? (endpoint.format !== undefined && bytes ? parseJsonObject(bytes.toString("utf8")) : undefined);
  const model =
    endpoint.pathModel ?? (json ? (typeof json.model === "string" ? json.model : undefined) : looksLikeJsonObject(bytes) ? findTopLevelString(bytes, "model")?.value : undefined);
  const stream = endpoint.format?.streams(endpoint.rest, json) ?? false;
  return { bytes, json, model, stream };
}
