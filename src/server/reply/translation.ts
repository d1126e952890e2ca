import { ApiError, type ErrorFields } from "../../errors/index.js";
import type { WireFormat } from "../../formats/index.js";
import { redactValues, type Secrets } from "../../secrets.js";
import type { ClientSide, ReplyHints, TranslateContext, UpstreamSide } from "../../translate/index.js";
import { contextOverflowOf } from "../../translate/context-overflow.js";
import { readUpstreamError } from "../../translate/upstream-error-reply.js";
import { clientResponseHeaders } from "../../upstream/header-policy.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import { readText } from "./decoded-body.js";

/** A route that translates, as its reply transform needs it: both formats, what the request's translation learned, the upstream. */
export interface Translation {
  /** The client's format, and its translator. */
  from: WireFormat;
  client: ClientSide;
  /** The upstream's format, and its translator. */
  to: WireFormat;
  target: UpstreamSide;
  hints: ReplyHints;
  tctx: TranslateContext;
  upstream: { name: string; label: string };
  /** The keys the gateway handles: none of them reaches the client in what it rewrote. */
  secrets: Secrets;
}

/**
 * An upstream's headers for a reply whose body the gateway rewrote: its own, without length and encoding, and
 * without a key it echoed (`location`, `www-authenticate`, its own headers), as the rewritten body is.
 */
export function rewrittenHeaders(reply: UpstreamReply, t: Translation): Record<string, string | string[]> {
  const out = redactValues(clientResponseHeaders(reply.headers), (text) => t.secrets.redact(text));
  for (const name of ["content-length", "content-encoding", "content-type"]) delete out[name];
  out["x-gateway-upstream"] = t.upstream.name;
  return out;
}

/**
 * An upstream's error on a translated route, its status and its body's text, as the client's format says it (SPEC
 * 10 rule 5): the upstream's status and message (every key the gateway knows hidden: an upstream may repeat the key
 * it was sent), the type the status means, worded as the client's format expects (`WireFormat.wordUpstreamError`).
 */
export const upstreamErrorFields = (t: Translation, status: number, bodyText: string): ErrorFields =>
  t.from.wordUpstreamError(readUpstreamError(status, bodyText, (text) => t.secrets.redact(text)));

/**
 * An error inside an upstream's stream (`{"error": ...}` as an event) as the client's format says it, as an error
 * reply is: its message redacted, a context overflow in the words the client's tool recovers from, read with the
 * upstream's error object (`detail`) as an error reply's is, so that both say the same numbers.
 */
export function streamErrorFields(t: Translation, error: ErrorFields, detail?: Record<string, unknown>): ErrorFields {
  const message = t.secrets.redact(error.message);
  const fields = { ...error, message };
  return t.from.wordUpstreamError({ fields, upstreamType: undefined, upstreamCode: undefined, overflow: contextOverflowOf(error.status, message, error.code, detail) });
}

/** An upstream error reply (status >= 400), read whole, as the client's error. */
export async function readUpstreamErrorReply(x: Exchange, reply: UpstreamReply, t: Translation): Promise<ErrorFields> {
  const text = await readText(reply, t.upstream).catch(() => "");
  x.delivery.replyHeaders = reply.headers;
  return upstreamErrorFields(t, reply.status, text);
}

/** The upstream's error as the answer the error boundary gives in the client's envelope, with the upstream's headers. */
export const upstreamAnswer = (fields: ErrorFields, headers: Record<string, string | string[]>): ApiError =>
  new ApiError(fields.status, fields.type, fields.message, { param: fields.param, code: fields.code, headers });
