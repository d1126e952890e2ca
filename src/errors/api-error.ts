import { GatewayError, type GatewayErrorOptions } from "./gateway-error.js";

/**
 * The one vocabulary of error types (SPEC section 4 for the gateway's own errors, section 10 rule 5 for an
 * upstream's error read for a client), shared by every family.
 */
export type ApiErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error"
  | "timeout_error";

/**
 * What went wrong, before it is put in a format's envelope: the plain data every error renderer reads. `type` is an
 * `ApiErrorType`, or an upstream's own type that a chat client keeps (SPEC 10 rule 5).
 */
export interface ErrorFields {
  status: number;
  type: string;
  message: string;
  param: string | null;
  code: string | null;
}

/**
 * Status -> the type it means and Google's status name for it (SPEC sections 4 and 10 rule 5; 529 is Anthropic's
 * "overloaded"). One table, so the gateway's own errors, an upstream's error read for a client and the Gemini
 * envelope never disagree about a status.
 */
const STATUSES: Readonly<Record<number, readonly [type: ApiErrorType, google: string]>> = {
  400: ["invalid_request_error", "INVALID_ARGUMENT"],
  401: ["authentication_error", "UNAUTHENTICATED"],
  403: ["permission_error", "PERMISSION_DENIED"],
  404: ["not_found_error", "NOT_FOUND"],
  408: ["invalid_request_error", "DEADLINE_EXCEEDED"],
  409: ["invalid_request_error", "ABORTED"],
  413: ["request_too_large", "INVALID_ARGUMENT"],
  415: ["invalid_request_error", "INVALID_ARGUMENT"],
  429: ["rate_limit_error", "RESOURCE_EXHAUSTED"],
  500: ["api_error", "INTERNAL"],
  501: ["api_error", "UNIMPLEMENTED"],
  502: ["api_error", "UNAVAILABLE"],
  503: ["overloaded_error", "UNAVAILABLE"],
  504: ["api_error", "DEADLINE_EXCEEDED"],
  529: ["overloaded_error", "UNAVAILABLE"],
};

/** A status the table does not name gets its class's usual meaning. */
const rowOf = (status: number): readonly [ApiErrorType, string] =>
  STATUSES[status] ?? (status >= 500 ? ["api_error", "INTERNAL"] : ["invalid_request_error", "FAILED_PRECONDITION"]);

/** The error type a status means (SPEC 10 rule 5), in every family. */
export const errorTypeFor = (status: number): ApiErrorType => rowOf(status)[0];

const API_ERROR_TYPES: ReadonlySet<string> = new Set<string>([...Object.values(STATUSES).map(([type]) => type), "timeout_error"]);

/** Whether `type` is one of the shared vocabulary (Anthropic's own words); chat's `insufficient_quota` is not. */
export const isApiErrorType = (type: string): type is ApiErrorType => API_ERROR_TYPES.has(type);

/** Google's status name for an HTTP status (the Gemini envelope's `status`). */
export const googleStatusFor = (status: number): string => rowOf(status)[1];

export interface ApiErrorOptions extends GatewayErrorOptions {
  /** The type when it is not the one the status means (SPEC 4: a 408 or 504 of the gateway's own is `timeout_error`). */
  type?: string | undefined;
  /** The request field the error is about (chat envelope `param`). */
  param?: string | null | undefined;
  /** Short snake_case code (chat envelope `code`). */
  code?: string | null | undefined;
  /**
   * The headers of an answer that carries an upstream's: its error reply put in the client's shape on a translated
   * route. Such an answer is the upstream's, sent with these headers instead of the gateway's own.
   */
  headers?: Record<string, string | string[]> | undefined;
  /** Seconds the client should wait before asking again: the answer's `retry-after` (a spent budget's reset). */
  retryAfterSeconds?: number | undefined;
}

/**
 * An error the client is answered with: status, type, message, param and code, whatever family's envelope it is
 * then put in. Messages say what to do next and never hold a key. Made by `apiError` (the type follows the status).
 */
export class ApiError extends GatewayError implements ErrorFields {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
  /** Set when the answer is an upstream's error reply in the client's shape (`ApiErrorOptions.headers`). */
  readonly headers: Record<string, string | string[]> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, type: string, message: string, options: ApiErrorOptions = {}) {
    super(message, options);
    this.status = status;
    this.type = type;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.headers = options.headers;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The one factory: an `ApiError` whose type follows its status unless `options.type` names another. */
export const apiError = (status: number, message: string, options: ApiErrorOptions = {}): ApiError =>
  new ApiError(status, options.type ?? errorTypeFor(status), message, options);

/** 400: the request itself is wrong. */
export const badRequest = (message: string, options?: ApiErrorOptions): ApiError => apiError(400, message, options);

/** 401: missing or wrong local key, or a request that needs it (SPEC section 4: chat code `invalid_api_key` for every 401). */
export const unauthorized = (message: string): ApiError => apiError(401, message, { code: "invalid_api_key" });

/** 403: a guard refused the request (Host or Origin). */
export const forbidden = (message: string, code: string): ApiError => apiError(403, message, { code });

/** 404: nothing is served at this method and path. */
export const notFound = (message: string): ApiError => apiError(404, message, { code: "not_found" });

/** 413: the body is over the configured limit. */
export const tooLarge = (limit: number): ApiError =>
  apiError(413, `Request body is larger than ${limit} bytes. Send a smaller request, or raise maxBodyBytes in the gateway config.`, { code: "request_too_large" });

/** 415: a known endpoint received something other than JSON. */
export const unsupportedMediaType = (): ApiError => apiError(415, "Content-Type must be application/json.", { code: "unsupported_media_type" });

/** 408: the client took too long to send its request body (slow-loris). */
export const requestTimeout = (seconds: number): ApiError =>
  apiError(408, `The request body did not arrive within ${seconds} s. Send the whole request at once, then retry.`, { type: "timeout_error", code: "request_timeout" });

/** 502: the request was cut short by the gateway itself (shutdown), or could not be forwarded. */
export const upstreamFailed = (message: string, cause?: unknown): ApiError => apiError(502, message, { code: "upstream_error", cause });

/** 500: the gateway failed in a way it did not expect (a bug); the details go to its log, not to the client. */
export const internalError = (cause: unknown): ApiError =>
  apiError(500, "The gateway failed on this request in a way it did not expect; its log has the details. Retry it, and report it if it keeps happening.", {
    code: "internal_error",
    cause,
  });
