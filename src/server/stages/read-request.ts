import type { IncomingMessage } from "node:http";
import { parseJsonObject } from "../../parse-json.js";
import { findTopLevelString } from "../json-scan.js";
import { checkBody } from "./check-body.js";
import { readBody } from "./read-body.js";
import type { Endpoint } from "./resolve.js";

/** The request as the client sent it, read and checked: what routing and translation start from. */
export interface ClientRequest {
  /** The body bytes exactly as they came (what a passthrough route sends on); undefined when there was none. */
  bytes: Buffer | undefined;
  /** The body parsed, for the endpoints whose bodies are checked (model calls and counts); undefined for passthrough paths. */
  json: Record<string, unknown> | undefined;
  /** The model the request names: the Gemini path's, else the body's `model`; undefined when it names none. */
  model: string | undefined;
  /** Whether the client asked for a stream (`"stream": true`, or Gemini's `:streamGenerateContent`). */
  stream: boolean;
}

const NO_BODY_METHODS = new Set(["GET", "HEAD"]);

function hasBody(req: IncomingMessage): boolean {
  return !NO_BODY_METHODS.has(req.method ?? "GET") || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

const looksLikeJsonObject = (body: Buffer | undefined): body is Buffer => body !== undefined && body.length > 1 && body.includes(0x7b);

/** Stage 5, first half: the whole body (32 MiB, the slow-loris deadline), or undefined for a request without one. */
export async function readRequestBody(req: IncomingMessage, maxBytes: number, deadlineMs: number): Promise<Buffer | undefined> {
  return hasBody(req) ? readBody(req, maxBytes, deadlineMs) : undefined;
}

/**
 * The model a request names without parsing its body: the path's (Gemini), else a top-level string `model` found in
 * the bytes. For bodies that are not parsed (unchecked paths), and for one the checks refused (issue 37, item 13).
 */
export function modelNamed(endpoint: Endpoint, bytes: Buffer | undefined): string | undefined {
  return endpoint.pathModel || (looksLikeJsonObject(bytes) ? findTopLevelString(bytes, "model")?.value : undefined);
}

/**
 * Stage 5, second half: checks the known endpoints' bodies (SPEC section 3.5), and finds the model the request names
 * and whether it streams.
 */
export function checkRequest(req: IncomingMessage, endpoint: Endpoint, bytes: Buffer | undefined): ClientRequest {
  // Model calls without body rules (`/v1/responses`, Gemini's `:countTokens`) are still read, leniently: a route may
  // translate them, and whether they stream is in the body. What does not parse goes on as it came.
  const json = checkBody(endpoint, req.headers["content-type"], bytes) ?? (endpoint.format !== undefined && bytes ? parseJsonObject(bytes.toString("utf8")) : undefined);
  const model = json ? (endpoint.pathModel ?? (typeof json.model === "string" ? json.model : undefined)) : modelNamed(endpoint, bytes);
  const stream = endpoint.family.name === "gemini" ? endpoint.rest.endsWith(":streamGenerateContent") : json?.stream === true;
  return { bytes, json, model, stream };
}
