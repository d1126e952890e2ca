import type { IncomingMessage } from "node:http";
import { parseJsonObject } from "../../parse-json.js";
import { findTopLevelString } from "../json-scan.js";
import { checkBody } from "./check-body.js";
import { readBody } from "./read-body.js";
import type { Endpoint } from "../../formats/index.js";
import { ClientRequest } from "../../request/client-request.js";

const NO_BODY_METHODS = new Set(["GET", "HEAD"]);

function hasBody(req: IncomingMessage): boolean {
  return !NO_BODY_METHODS.has(req.method ?? "GET") || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

const looksLikeJsonObject = (body: Buffer | undefined): body is Buffer => body !== undefined && body.length > 1 && body.includes(0x7b);

/**
 * Stage 5: reads the whole body (32 MiB, the slow-loris deadline), checks the known endpoints' bodies (SPEC section
 * 3.5), and finds the model it names. Bodies of unchecked paths are scanned for a top-level `model` without parsing.
 */
export async function readRequest(req: IncomingMessage, endpoint: Endpoint, query: string, maxBytes: number, deadlineMs: number): Promise<ClientRequest> {
  const bytes = hasBody(req) ? await readBody(req, maxBytes, deadlineMs) : undefined;
  // Model calls without body rules (`/v1/responses`, Gemini's `:countTokens`) are still read, leniently: a route may
  // translate them, and whether they stream is in the body. What does not parse goes on as it came.
  const json = checkBody(endpoint, req.headers["content-type"], bytes) ?? (endpoint.format !== undefined && bytes ? parseJsonObject(bytes.toString("utf8")) : undefined);
  const model =
    endpoint.pathModel ?? (json ? (typeof json.model === "string" ? json.model : undefined) : looksLikeJsonObject(bytes) ? findTopLevelString(bytes, "model")?.value : undefined);
  const stream = endpoint.format?.streams(endpoint.rest, json) ?? false;
  return new ClientRequest(endpoint, query, req.headers, bytes, json, model, stream);
}
