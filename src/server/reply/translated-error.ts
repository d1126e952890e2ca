import type { Family } from "../../families/index.js";
import { isContextLengthError, readUpstreamError } from "../../translate/upstream-errors.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import { readText } from "./decoded-body.js";
import type { EventStreamWriter } from "./event-stream-writer.js";
import { sendJson } from "./send-json.js";

/** How a translated route tells its client of an upstream's failure, in the client's format, keys hidden. */
export interface ClientErrors {
  /** Text from the upstream with every key the gateway knows hidden (an upstream may repeat the key it was sent). */
  redact(text: string): string;
  /** An upstream error, its status and its body's text, as the client's error: the reply, or a started stream's last event. */
  send(status: number, bodyText: string): void;
}

/**
 * Upstream errors on a translated route, in the client's format (SPEC 10 rule 5): the upstream's status and message,
 * the type the status means; chat clients keep the upstream's own type and code; a context overflow reads as
 * Anthropic words it to messages clients ("prompt is too long"), which is what Claude Code compacts on. A stream that
 * already started (a messages stream opened early) ends with it as its error event instead.
 */
export function clientErrors(
  x: Exchange,
  clientFamily: Family,
  redact: (text: string) => string,
  headers: Record<string, string | string[]>,
  stream: EventStreamWriter | undefined,
): ClientErrors {
  return {
    redact,
    send(status, bodyText) {
      const { fields, upstreamType, upstreamCode } = readUpstreamError(status, bodyText, redact);
      if (clientFamily.name === "chat") Object.assign(fields, { type: upstreamType ?? fields.type, code: upstreamCode ?? fields.code });
      if (clientFamily.name === "messages" && isContextLengthError(fields.message, fields.code) && !/prompt is too long/i.test(fields.message)) {
        fields.message = `prompt is too long: ${fields.message}`;
      }
      // A messages stream that started early has said 200 already: the error is its last event.
      if (stream?.opened) return stream.fail(fields);
      sendJson(x, status, clientFamily.errorBody(fields), headers);
    },
  };
}

/** An upstream error reply (status >= 400) on a translated route, read whole and sent as the client's error. */
export async function sendTranslatedError(x: Exchange, reply: UpstreamReply, upstream: { name: string; label: string }, errors: ClientErrors): Promise<void> {
  const text = await readText(reply, upstream).catch(() => "");
  x.draft.replyHeaders = reply.headers;
  errors.send(reply.status, text);
}
