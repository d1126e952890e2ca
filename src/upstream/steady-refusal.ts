import { badRequest } from "../errors/index.js";
import type { Family } from "../formats/index.js";
import type { SteadyRefusal } from "../kinds/types.js";
import { readUpstreamError } from "../translate/upstream-error-reply.js";
import type { DispatchedReply } from "./dispatch-reply.js";
import { ReplyBody } from "./reply-body.js";

/** The upstream's message when its error answer is one of the refusals its kind names (SPEC 11), else undefined. */
export function steadyRefusalMessage(refusals: readonly SteadyRefusal[], status: number, bodyText: string): string | undefined {
  const { message } = readUpstreamError(status, bodyText, (text) => text).fields;
  return refusals.some((refusal) => refusal.status === status && message.includes(refusal.says)) ? message : undefined;
}

/**
 * An upstream's answer as the gateway goes on with it (SPEC 11, Refusals that do not change with a retry): an error
 * status its kind names a refusal for is read whole, and when its message is one, it becomes a 400 in `family`'s
 * envelope with the upstream's message, which is neither retried nor a reason to fall back, and which a client's SDK
 * does not retry either. Anything else comes back as it was (a body read to check it is handed on unchanged).
 */
export async function withSteadyRefusal(refusals: readonly SteadyRefusal[], family: Family, reply: DispatchedReply): Promise<DispatchedReply> {
  const { statusCode, headers } = reply;
  // A compressed or streamed body is not an error message the kind names: left unread.
  if (!refusals.some((refusal) => refusal.status === statusCode) || headers["content-encoding"] || String(headers["content-type"] ?? "").startsWith("text/event-stream")) return reply;
  const text = await reply.body.text();
  const message = steadyRefusalMessage(refusals, statusCode, text);
  if (message === undefined) return { statusCode, headers, body: ReplyBody.of(Buffer.from(text)) };
  const bytes = Buffer.from(family.errors.json(badRequest(message)));
  const rewritten = { ...headers, "content-type": "application/json", "content-length": String(bytes.length) };
  return { statusCode: 400, headers: rewritten, body: ReplyBody.of(bytes) };
}
