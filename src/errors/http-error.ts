import { GatewayError, type GatewayErrorOptions } from "./gateway-error.js";

/**
 * What the local server answers with when it refuses a request itself (SPEC sections 3 and 4). Upstream failures
 * are `UpstreamError`s and become one of these in `server/render-error.ts`.
 */

/** The error `type` strings of SPEC section 4, shared by every family. */
export type HttpErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "api_error"
  | "timeout_error";

export interface HttpErrorOptions extends GatewayErrorOptions {
  /** The request field the error is about (chat envelope `param`). */
  param?: string | null;
  /** Short snake_case code (chat envelope `code`). */
  code?: string | null;
}

/** An error with an HTTP status that the gateway answers with. Messages say what to do next and never hold a key. */
export class HttpError extends GatewayError {
  readonly status: number;
  readonly type: HttpErrorType;
  readonly param: string | null;
  readonly code: string | null;

  constructor(status: number, type: HttpErrorType, message: string, options: HttpErrorOptions = {}) {
    super(message, options);
    this.status = status;
    this.type = type;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
  }
}

/** 400: the request itself is wrong. */
export const badRequest = (message: string, options?: HttpErrorOptions): HttpError =>
  new HttpError(400, "invalid_request_error", message, options);

/** 401: missing or wrong local key. */
export const unauthorized = (message: string): HttpError =>
  new HttpError(401, "authentication_error", message, { code: "invalid_api_key" });

/** 403: a guard refused the request (Host or Origin). */
export const forbidden = (message: string, code: string): HttpError =>
  new HttpError(403, "permission_error", message, { code });

/** 404: nothing is served at this method and path. */
export const notFound = (message: string): HttpError =>
  new HttpError(404, "not_found_error", message, { code: "not_found" });

/** 413: the body is over the configured limit. */
export const tooLarge = (limit: number): HttpError =>
  new HttpError(
    413,
    "request_too_large",
    `Request body is larger than ${limit} bytes. Send a smaller request, or raise maxBodyBytes in the gateway config.`,
    { code: "request_too_large" },
  );

/** 415: a known endpoint received something other than JSON. */
export const unsupportedMediaType = (): HttpError =>
  new HttpError(415, "invalid_request_error", "Content-Type must be application/json.", {
    code: "unsupported_media_type",
  });

/** 408: the client took too long to send its request body (slow-loris). */
export const requestTimeout = (seconds: number): HttpError =>
  new HttpError(408, "timeout_error", `The request body did not arrive within ${seconds} s. Send the whole request at once, then retry.`, {
    code: "request_timeout",
  });

/** 502: the request was cut short by the gateway itself (shutdown), or could not be forwarded. */
export const upstreamFailed = (message: string, cause?: unknown): HttpError =>
  new HttpError(502, "api_error", message, { code: "upstream_error", cause });

/** 500: the gateway failed in a way it did not expect (a bug); the details go to its log, not to the client. */
export const internalError = (cause: unknown): HttpError =>
  new HttpError(500, "api_error", "The gateway failed on this request in a way it did not expect; its log has the details. Retry it, and report it if it keeps happening.", {
    code: "internal_error",
    cause,
  });
