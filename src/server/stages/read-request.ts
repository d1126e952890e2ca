import { isAscii } from "node:buffer";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { parseJsonObject } from "../../parse-json.js";
import { findTopLevelString } from "../json-scan.js";
import type { Credential } from "./authenticate.js";
import { checkBody, textToCheck } from "./check-body.js";
import { readBody } from "./read-body.js";
import type { Endpoint } from "../../formats/index.js";
import { CheckedAsLatin1, ClientRequest } from "../../request/client-request.js";

const NO_BODY_METHODS = new Set(["GET", "HEAD"]);

function hasBody(req: IncomingMessage): boolean {
  return !NO_BODY_METHODS.has(req.method ?? "GET") || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

const looksLikeJsonObject = (body: Buffer | undefined): body is Buffer => body !== undefined && body.length > 1 && body.includes(0x7b);

/**
 * Step 5 of the request path (docs/ARCHITECTURE.md), first half.
 * The whole body (32 MiB, the slow-loris deadline), or undefined for a request without one.
 */
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

/** A character beyond ASCII: a string read from `textToCheck`'s text that has one may not be the body's own. */
const BEYOND_ASCII = /[^\x00-\x7f]/;

/**
 * Step 5 of the request path (docs/ARCHITECTURE.md), second half.
 * Checks the known endpoints' bodies (SPEC section 3.5), and reads the request once: the model
 * it names and whether it streams, as a `ClientRequest` (`gateway routes` reads a dry run's request here too). `mayTranslate`: whether a route may need the body's values
 * (an upstream does not serve its format), so a body is parsed as UTF-8 now, once. Otherwise a body with bytes beyond
 * ASCII is checked as `textToCheck`'s text, and parsed as UTF-8 only if something reads it (a fallback that
 * translates, a route's question, a model name beyond ASCII).
 */
export function checkRequest(headers: IncomingHttpHeaders, endpoint: Endpoint, query: string, bytes: Buffer | undefined, mayTranslate: boolean, credential: Credential = "local"): ClientRequest {
  const ownCredential = credential === "own";
  // An ASCII body reads the same as latin1 and as UTF-8: the checked object is the body's own.
  const ascii = bytes === undefined || isAscii(bytes);
  const ownText = ascii || mayTranslate;
  const text = ascii || !mayTranslate ? textToCheck(bytes) : bytes.toString("utf8");
  // Model calls without body rules (`/v1/responses`, Gemini's `:countTokens`) are still read, leniently: a route may
  // translate them, and whether they stream is in the body. What does not parse goes on as it came.
  const checked = checkBody(endpoint, headers["content-type"], text) ?? (endpoint.format !== undefined && bytes ? parseJsonObject(text) : undefined);
  const stream = endpoint.format?.streams(endpoint.rest, checked) ?? false;
  if (!checked) return new ClientRequest(endpoint, query, headers, bytes, undefined, modelNamed(endpoint, bytes), stream, ownCredential);
  const named = endpoint.pathModel ?? (typeof checked.model === "string" ? checked.model : undefined);
  if (bytes === undefined || ownText || named === undefined || !BEYOND_ASCII.test(named)) {
    return new ClientRequest(endpoint, query, headers, bytes, ownText ? checked : new CheckedAsLatin1(checked), named, stream, ownCredential);
  }
  const json = parseJsonObject(bytes.toString("utf8"));
  return new ClientRequest(endpoint, query, headers, bytes, json, endpoint.pathModel ?? (typeof json?.model === "string" ? json.model : undefined), stream, ownCredential);
}
