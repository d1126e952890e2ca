import type { Json } from "../hub.js";
import type { ErrorFields } from "../types.js";

/** Google's status names for HTTP statuses (SPEC sections 4 and 10 rule 5; 529 is Anthropic's "overloaded"). */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
  529: "UNAVAILABLE",
};

/** The Google status name of an HTTP status; one the table does not name gets its class's usual one. */
export const geminiStatusName = (status: number): string => STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");

/**
 * An error in Gemini's envelope, `{"error":{"code","message","status"}}`: the body of an error reply, and the
 * data of the one event that ends a broken stream. The SDK turns such an event into an `ApiError` with that code
 * (so Gemini CLI retries a 429 or 5xx as it would against Google).
 */
export const geminiErrorBody = (error: Pick<ErrorFields, "status" | "message">): Json => ({
  error: { code: error.status, message: error.message, status: geminiStatusName(error.status) },
});
