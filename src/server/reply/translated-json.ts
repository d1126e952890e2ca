import { upstreamFailed } from "../../errors/index.js";
import { noUsage, type Usage } from "../../families/index.js";
import { parseJsonObject } from "../../parse-json.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import type { RoutePlan } from "../stages/plan-route.js";
import { errorReplyStatus } from "../../translate/upstream-errors.js";
import { readText } from "./decoded-body.js";
import type { ClientErrors } from "./translated-error.js";
import { sendJson } from "./send-json.js";

type TranslatePlan = Extract<RoutePlan, { kind: "translate" }>;

/**
 * The upstream's whole JSON reply, parsed, with the usage it reports; a body that is not a JSON object is a 502. A 200
 * body that is an error (`errorReplyStatus`) is sent to the client as one, and undefined comes back.
 */
export async function readUpstreamJson(reply: UpstreamReply, plan: TranslatePlan, errors: ClientErrors): Promise<{ json: Record<string, unknown>; usage: Usage } | undefined> {
  const text = await readText(reply, plan.upstream);
  const json = parseJsonObject(text);
  if (!json) throw upstreamFailed(`The upstream ${plan.upstream.label} answered with a body that is not JSON, so it could not be translated. Check that it serves ${plan.to} at this path.`);
  const usage = noUsage();
  plan.call.family.readUsage(json, usage);
  const status = errorReplyStatus(json);
  if (status === undefined) return { json, usage };
  errors.send(status, text);
  return undefined;
}

/** A whole translated reply: upstream format -> hub -> the client's format (SPEC 10 rule 2). */
export async function sendTranslatedJson(x: Exchange, plan: TranslatePlan, reply: UpstreamReply, headers: Record<string, string | string[]>, errors: ClientErrors): Promise<void> {
  x.draft.replyHeaders = reply.headers;
  const read = await readUpstreamJson(reply, plan, errors);
  if (!read) return;
  x.draft.usage = read.usage;
  const hub = plan.target.replyToHub(read.json, plan.tctx);
  sendJson(x, reply.status, plan.client.replyFromHub(hub, plan.hints, plan.tctx), headers);
}
