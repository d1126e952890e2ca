import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { parseJsonObject } from "../../parse-json.js";
import { findTopLevelString } from "../json-scan.js";
import type { Credential } from "./authenticate.js";
import { checkBody } from "./check-body.js";
import { readBody } from "./read-body.js";
import type { Endpoint } from "../../formats/index.js";
import { ClientRequest } from "../../request/client-request.js";

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
 * Stage 5, second half: checks the known endpoints' bodies (SPEC section 3.5), and reads the request once: the model
 * it names and whether it streams, as a `ClientRequest`. `gateway routes` reads a dry run's request here too.
 */
export function checkRequest(headers: IncomingHttpHeaders, endpoint: Endpoint, query: string, bytes: Buffer | undefined, credential: Credential = "local"): ClientRequest {
  // Model calls without body rules (`/v1/responses`, Gemini's `:countTokens`) are still read, leniently: a route may
  // translate them, and whether they stream is in the body. What does not parse goes on as it came.
  const json = checkBody(endpoint, headers["content-type"], bytes) ?? (endpoint.format !== undefined && bytes ? parseJsonObject(bytes.toString("utf8")) : undefined);
  const model = json ? (endpoint.pathModel ?? (typeof json.model === "string" ? json.model : undefined)) : modelNamed(endpoint, bytes);
  const stream = endpoint.format?.streams(endpoint.rest, json) ?? false;
  return new ClientRequest(endpoint, query, headers, bytes, json, model, stream, credential === "own");
}
