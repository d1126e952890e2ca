import type { Exchange } from "../exchange.js";
import type { Endpoint } from "../stages/resolve.js";
import type { Forwarded } from "../stages/forward.js";
import { redactValues, type Secrets } from "../../secrets.js";
import { clientResponseHeaders } from "../../upstream/header-policy.js";
import { sendLocalCount } from "./local-count.js";
import { relayPassthrough } from "./passthrough.js";
import { clientErrors, sendTranslatedError } from "./translated-error.js";
import { sendTranslatedJson } from "./translated-json.js";
import { relayTranslatedStream } from "./translated-stream.js";

/**
 * An upstream's headers for a reply whose body the gateway rewrote: its own, without length and encoding, and
 * without a key it echoed (`location`, `www-authenticate`, its own headers), as the rewritten body is.
 */
function rewrittenHeaders(headers: Record<string, string | string[] | undefined>, upstream: string, secrets: Secrets): Record<string, string | string[]> {
  const out = redactValues(clientResponseHeaders(headers), (text) => secrets.redact(text));
  for (const name of ["content-length", "content-encoding", "content-type"]) delete out[name];
  out["x-gateway-upstream"] = upstream;
  return out;
}

/**
 * Stage 8: the reply transform, chosen once per request from how it was routed. Passthrough is the zero-copy
 * relay; a translated reply is rewritten whole (JSON, and error statuses in the client's envelope) or event by
 * event (streams); a count the upstream cannot make is made here. Every answer to a routed request names its
 * upstream in `x-gateway-upstream`.
 */
export async function deliver(x: Exchange, endpoint: Endpoint, forwarded: Forwarded, secrets: Secrets): Promise<void> {
  const { plan } = forwarded;
  if (plan.kind === "count") return sendLocalCount(x, plan);
  const { reply } = forwarded as Exclude<Forwarded, { plan: { kind: "count" } }>;
  if (plan.kind === "passthrough") return relayPassthrough(x, reply, plan.call.family, { "x-gateway-upstream": plan.upstream.name });
  const headers = rewrittenHeaders(reply.headers, plan.upstream.name, secrets);
  const stream = (forwarded as Extract<Forwarded, { plan: { kind: "translate" } }>).stream;
  const errors = clientErrors(x, endpoint.family, (text) => secrets.redact(text), headers, stream);
  if (reply.status >= 400) return sendTranslatedError(x, reply, plan.upstream, errors);
  if (stream) return relayTranslatedStream(x, plan, reply, stream, headers, errors);
  return sendTranslatedJson(x, plan, reply, headers, errors);
}
