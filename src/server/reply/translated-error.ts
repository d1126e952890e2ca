import type { WireFormat } from "../../formats/index.js";
import { readUpstreamError } from "../../translate/upstream-error-reply.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import { readText } from "./decoded-body.js";
import type { EventStreamWriter } from "./event-stream-writer.js";
import { sendJson } from "./send-json.js";

/**
 * An upstream error reply on a translated route, in the client's format (SPEC 10 rule 5): the upstream's status
 * and message, the type the status means; chat clients keep the upstream's own type and code; a context overflow
 * reads as Anthropic words it to messages clients ("prompt is too long"), which is what Claude Code compacts on. A
 * stream that already started (a messages stream opened early) ends with it as its error event instead.
 */
export async function sendTranslatedError(
  x: Exchange,
  reply: UpstreamReply,
  upstream: { name: string; label: string },
  client: WireFormat,
  redact: (text: string) => string,
  headers: Record<string, string | string[]>,
  stream: EventStreamWriter | undefined,
): Promise<void> {
  const text = await readText(reply, upstream).catch(() => "");
  const fields = client.wordUpstreamError(readUpstreamError(reply.status, text, redact));
  x.draft.replyHeaders = reply.headers;
  // A messages stream that started early has said 200 already: the error is its last event.
  if (stream?.opened) return stream.fail(fields);
  sendJson(x, reply.status, client.errors.body(fields), headers);
}
