/**
 * The one error type the server answers with. Every local failure, from a bad Host header to an upstream that
 * never answered, ends up here and is rendered in the caller's family envelope by `server/render-error.ts`.
 */

/** The error `type` strings of SPEC section 4, shared by both families. */
export type GatewayErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "api_error"
  | "timeout_error";

export interface GatewayErrorOptions {
  /** The request field the error is about (chat envelope `param`). */
  param?: string | null;
  /** Short snake_case code (chat envelope `code`). */
  code?: string | null;
  cause?: unknown;
}

/** An error with an HTTP status that the gateway answers with. Messages say what to do next and never hold a key. */
export class GatewayError extends Error {
  readonly status: number;
  readonly type: GatewayErrorType;
  readonly param: string | null;
  readonly code: string | null;

  constructor(status: number, type: GatewayErrorType, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.status = status;
    this.type = type;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
  }
}

/** 400: the request itself is wrong. */
export const badRequest = (message: string, options?: GatewayErrorOptions): GatewayError =>
  new GatewayError(400, "invalid_request_error", message, options);

/** 401: missing or wrong local key. */
export const unauthorized = (message: string): GatewayError =>
  new GatewayError(401, "authentication_error", message, { code: "invalid_api_key" });

/** 403: a guard refused the request (Host or Origin). */
export const forbidden = (message: string, code: string): GatewayError =>
  new GatewayError(403, "permission_error", message, { code });

/** 404: nothing is served at this method and path. */
export const notFound = (message: string): GatewayError =>
  new GatewayError(404, "not_found_error", message, { code: "not_found" });

/** 413: the body is over the configured limit. */
export const tooLarge = (limit: number): GatewayError =>
  new GatewayError(
    413,
    "request_too_large",
    `Request body is larger than ${limit} bytes. Send a smaller request, or raise maxBodyBytes in the gateway config.`,
    { code: "request_too_large" },
  );

/** 415: a known endpoint received something other than JSON. */
export const unsupportedMediaType = (): GatewayError =>
  new GatewayError(415, "invalid_request_error", "Content-Type must be application/json.", {
    code: "unsupported_media_type",
  });

/** 408: the client took too long to send its request body (slow-loris). */
export const requestTimeout = (seconds: number): GatewayError =>
  new GatewayError(408, "timeout_error", `The request body did not arrive within ${seconds} s. Send the whole request at once, then retry.`, {
    code: "request_timeout",
  });

/** 502: the upstream could not be reached or broke before answering. */
export const upstreamFailed = (message: string, cause?: unknown): GatewayError =>
  new GatewayError(502, "api_error", message, { code: "upstream_error", cause });

/** 504: a connect, first-byte or idle timeout fired. */
export const upstreamTimeout = (message: string, cause?: unknown): GatewayError =>
  new GatewayError(504, "timeout_error", message, { code: "upstream_timeout", cause });

/** 503: a real upstream is configured but no key is stored for it (SPEC section 8); nothing is forwarded. */
export const noUpstreamKey = (upstream: string): GatewayError =>
  new GatewayError(
    503,
    "api_error",
    `No upstream key is stored for ${upstream}, so the gateway forwards nothing. Store one with \`gateway login\`, or set GATEWAY_API_KEY and restart the gateway.`,
    { code: "no_upstream_key" },
  );
