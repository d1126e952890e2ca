import { upstreamFailed, type ErrorFields } from "../../errors/index.js";
import { noUsage, type Usage } from "../../formats/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { replyChars } from "../../translate/hub-usage.js";
import { errorReplyStatus } from "../../translate/upstream-error-reply.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import { readText } from "./decoded-body.js";
import { sendJson } from "./send-json.js";
import { ReplyOnAnswer } from "./transform.js";
import { readUpstreamErrorReply, rewrittenHeaders, upstreamAnswer, upstreamErrorFields, type Translation } from "./translation.js";

/**
 * The upstream's whole JSON reply, parsed, with the usage it reports; a body that is not a JSON object is a 502. A
 * 200 body that is an error (`errorReplyStatus`: OpenRouter's failures after it accepted a request) is that error,
 * as the client's format says it.
 */
export async function readUpstreamJson(reply: UpstreamReply, t: Translation): Promise<{ json: Record<string, unknown>; usage: Usage } | { error: ErrorFields }> {
  const text = await readText(reply, t.upstream);
  const json = parseJsonObject(text);
  if (!json) throw upstreamFailed(`The upstream ${t.upstream.label} answered with a body that is not JSON, so it could not be translated. Check that it serves ${t.to.name} at this path.`);
  const usage = noUsage();
  t.to.usage.read(json, usage);
  const status = errorReplyStatus(json);
  return status === undefined ? { json, usage } : { error: upstreamErrorFields(t, status, text) };
}

/**
 * A whole translated reply: upstream format -> hub -> the client's format (SPEC 10 rule 2). An error, as a status or
 * in a 200 body, is the upstream's error in the client's envelope (SPEC 10 rule 5), answered by the error boundary.
 */
export class TranslatedJsonReply extends ReplyOnAnswer {
  readonly #x: Exchange;
  readonly #t: Translation;

  constructor(x: Exchange, t: Translation) {
    super();
    this.#x = x;
    this.#t = t;
  }

  async deliver(reply: UpstreamReply): Promise<void> {
    const x = this.#x;
    const t = this.#t;
    const headers = rewrittenHeaders(reply, t);
    if (reply.status >= 400) throw upstreamAnswer(await readUpstreamErrorReply(x, reply, t), headers);
    x.delivery.replyHeaders = reply.headers;
    const read = await readUpstreamJson(reply, t);
    if ("error" in read) throw upstreamAnswer(read.error, headers);
    x.delivery.usage = read.usage;
    const hub = t.target.replyToHub(read.json, t.tctx);
    x.delivery.relayedChars = replyChars(hub);
    x.delivery.inputEstimate = t.hints.inputTokens;
    sendJson(x, reply.status, t.client.replyFromHub(hub, t.hints, t.tctx), headers);
  }
}
