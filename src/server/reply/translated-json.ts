import { upstreamFailed } from "../../errors/index.js";
import { noUsage, type Usage } from "../../formats/index.js";
import { parseJsonObject } from "../../parse-json.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import type { RoutePlan } from "../stages/plan-route.js";
import { readText } from "./decoded-body.js";
import { sendJson } from "./send-json.js";

type TranslatePlan = Extract<RoutePlan, { kind: "translate" }>;

/** The upstream's whole JSON reply, parsed, with the usage it reports; a body that is not a JSON object is a 502. */
export async function readUpstreamJson(reply: UpstreamReply, plan: TranslatePlan): Promise<{ json: Record<string, unknown>; usage: Usage }> {
  const json = parseJsonObject(await readText(reply, plan.upstream));
  if (!json) throw upstreamFailed(`The upstream ${plan.upstream.label} answered with a body that is not JSON, so it could not be translated. Check that it serves ${plan.to.name} at this path.`);
  const usage = noUsage();
  plan.to.usage.read(json, usage);
  return { json, usage };
}

/** A whole translated reply: upstream format -> hub -> the client's format (SPEC 10 rule 2). */
export async function sendTranslatedJson(x: Exchange, plan: TranslatePlan, reply: UpstreamReply, headers: Record<string, string | string[]>): Promise<void> {
  const { json, usage } = await readUpstreamJson(reply, plan);
  const hub = plan.to.upstream!.replyToHub(json, plan.tctx);
  x.draft.usage = usage;
  x.draft.replyHeaders = reply.headers;
  sendJson(x, reply.status, plan.from.client.replyFromHub(hub, plan.hints, plan.tctx), headers);
}
