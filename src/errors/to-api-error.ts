import { ApiError, apiError, internalError, type ApiErrorType } from "./api-error.js";
import { UpstreamError, UpstreamKeysRestingError } from "./upstream-error.js";

/**
 * What each kind of upstream failure is answered with (SPEC section 4): unreachable 502, no key 503, timeout 504,
 * every key resting 429 (SPEC 11).
 * The gateway's own 503 is an `api_error` (SPEC 4), where an upstream's 503 means `overloaded_error` (SPEC 10.5),
 * and its 504 a `timeout_error`: those two name their type.
 */
const UPSTREAM_FAILURE: Readonly<Record<UpstreamError["kind"], readonly [status: number, code: string, type?: ApiErrorType]>> = {
  unreachable: [502, "upstream_error"],
  status: [502, "upstream_error"],
  no_key: [503, "no_upstream_key", "api_error"],
  timeout: [504, "upstream_timeout", "timeout_error"],
  // SPEC 11, Several keys: messages `rate_limit_error`, chat code `rate_limit_exceeded` (OpenAI's), gemini RESOURCE_EXHAUSTED.
  resting: [429, "rate_limit_exceeded", "rate_limit_error"],
};

/**
 * What the client is told about an error: an `ApiError` as it is; an upstream failure with its status; anything
 * else is a bug in the gateway, reported to `onInternalError` and answered with a 500 that says so.
 */
export function toApiError(error: unknown, onInternalError: (error: unknown) => void): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof UpstreamError) {
    const [status, code, type] = UPSTREAM_FAILURE[error.kind];
    return apiError(status, error.message, { type, code, cause: error, retryAfterSeconds: error instanceof UpstreamKeysRestingError ? error.retryAfterSeconds : undefined });
  }
  onInternalError(error);
  return internalError(error);
}
