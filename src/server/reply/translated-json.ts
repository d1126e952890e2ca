import { upstreamFailed } from "../../errors/index.js";
import { noUsage, type Usage } from "../../formats/index.js";
import { parseJsonObject } from "../../parse-json.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import { readText } from "./decoded-body.js";
import { sendJson } from "./send-json.js";
import { ReplyOnAnswer } from "./transform.js";
import { rewrittenHeaders, upstreamAnswer, upstreamErrorFields, type Translation } from "./translation.js";

/** The upstream's whole JSON reply, parsed, with the usage it reports; a body that is not a JSON object is a 502. */
export async function readUpstreamJson(reply: UpstreamReply, t: Translation): Promise<{ json: Record<string, unknown>; usage: Usage }> {
  const json = parseJsonObject(await readText(reply, t.upstream));
  if (!json) throw upstreamFailed(`The upstream ${t.upstream.label} answered with a body that is not JSON, so it could not be translated. Check that it serves ${t.to.name} at this path.`);
  const usage = noUsage();
  t.to.usage.read(json, usage);
  return { json, usage };
}

/**
 * A whole translated reply: upstream format -> hub -> the client's format (SPEC 10 rule 2). An error status is the
 * upstream's error in the client's envelope (SPEC 10 rule 5), answered by the error boundary.
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
    if (reply.status >= 400) throw upstreamAnswer(await upstreamErrorFields(x, reply, t), headers);
    const { json, usage } = await readUpstreamJson(reply, t);
    const hub = t.target.replyToHub(json, t.tctx);
    x.delivery.usage = usage;
    x.delivery.replyHeaders = reply.headers;
    sendJson(x, reply.status, t.from.client.replyFromHub(hub, t.hints, t.tctx), headers);
  }
}
