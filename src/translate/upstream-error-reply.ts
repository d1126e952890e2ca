import { errorTypeFor } from "../errors/index.js";
import { parseJsonObject } from "../parse-json.js";
import { contextOverflowOf, type ContextOverflow } from "./context-overflow.js";
import type { ErrorFields } from "./types.js";

/**
 * The status a 200 JSON reply that is an error stands for, or undefined for a reply. OpenRouter answers 200 with
 * `{"error": {"code": 429, "message": ...}}` when a request fails after it was accepted (openrouter.ai/docs, "Errors"),
 * and some proxies do the same: the status its `code` names when that is an HTTP error status, else 502 (the upstream
 * failed without saying how). A body whose `choices` hold an answer is a reply, whatever else it says.
 */
export function errorReplyStatus(body: Record<string, unknown>): number | undefined {
  const { error, choices } = body;
  if (error === undefined || error === null || (Array.isArray(choices) && choices.length > 0)) return undefined;
  const code = Number(typeof error === "object" ? (error as UpstreamErrorObject).code : undefined);
  return Number.isInteger(code) && code >= 400 && code <= 599 ? code : 502;
}

type UpstreamErrorObject = { message?: unknown; type?: unknown; code?: unknown; status?: unknown };

/** An upstream error read for a client: the fields by SPEC 10 rule 5, and the upstream's own type and code, which chat clients keep. */
export interface UpstreamErrorRead {
  fields: ErrorFields;
  upstreamType: string | undefined;
  upstreamCode: string | undefined;
  /** Set when the upstream said the prompt does not fit the model's context (`context-overflow.ts`). */
  overflow: ContextOverflow | undefined;
}

/**
 * An upstream's error reply (any format: chat's and messages' `error.message`, Gemini's `error.message`, a bare
 * string, or plain text) read for a client in another format: the upstream's status and message text, the type the
 * status means, and the upstream's own `type`/`code` where it gave them. `redact` hides the upstream key should the
 * upstream have echoed it.
 */
export function readUpstreamError(status: number, bodyText: string, redact: (text: string) => string): UpstreamErrorRead {
  const body = parseJsonObject(bodyText);
  const raw = body?.error;
  const error: UpstreamErrorObject = typeof raw === "object" && raw !== null ? (raw as UpstreamErrorObject) : { message: typeof raw === "string" ? raw : body?.message };
  const text = typeof error.message === "string" && error.message ? error.message : bodyText.trim().slice(0, 500);
  const message = redact(text || `The upstream answered ${status} without saying why.`);
  const code = typeof error.code === "string" && error.code ? error.code : undefined;
  const overflow = contextOverflowOf(status, message, code, error as Record<string, unknown>);
  return {
    fields: { status, type: errorTypeFor(status), message, param: null, code: code ?? (overflow ? "context_length_exceeded" : null) },
    upstreamType: typeof error.type === "string" && error.type && error.type !== "error" ? error.type : undefined,
    upstreamCode: code,
    overflow,
  };
}
