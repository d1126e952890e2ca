import { performance } from "node:perf_hooks";
import { unauthorized, UpstreamError } from "../../errors/index.js";
import type { ClientRequest } from "../../request/client-request.js";
import type { TriedUpstream } from "../../request-log/record.js";
import type { Route } from "../../routing/router.js";
import type { Upstream, UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { budgetSpent } from "./budget-spent.js";
import { planRoute, type CountPlan, type RoutePlan, type SendPlan } from "./plan-route.js";

/** Statuses that send a request on to the next upstream of the fallback list, once the upstream's own retries are spent. */
const FALLBACK_STATUS: ReadonlySet<number> = new Set([429, 500, 502, 503, 529]);

/** Why an upstream was left for the next one, for the record: `upstream 429`, `unreachable`, `timeout`, `no key`. */
const failureOf = (outcome: UpstreamReply | UpstreamError): string => (outcome instanceof UpstreamError ? outcome.failure : `upstream ${outcome.status}`);

/** The 401 of a request with a credential of its own that routing sends to an upstream spending a key of the gateway's. */
const needsLocalKey = (route: Route, upstream: Upstream) =>
  unauthorized(
    `${route.model === undefined ? "This request" : `The model ${route.model}`} goes to the upstream ${upstream.name}, which uses a key of the gateway's, so it needs the local key: this request carries a credential of its own. Send the key printed by \`gateway env\`, or route it to an upstream with "key": "client" or "none".`,
  );

/**
 * How the walk down a route's upstreams ended: an upstream answered (its reply is to be delivered), the plan asks no
 * upstream (a count the gateway makes), or it failed (the last failure is what the client is told; the plan is
 * undefined when planning failed: a route the gateway cannot translate). Whichever way, with the upstream it ended
 * at and the ones that failed before it (SPEC 10, Fallback).
 */
export type Forwarded = { upstream: Upstream; tried: TriedUpstream[] } & (
  | { kind: "answered"; plan: SendPlan; reply: UpstreamReply }
  | { kind: "local"; plan: CountPlan }
  | { kind: "failed"; plan: RoutePlan | undefined; error: unknown }
);

/**
 * Lets go of what `plan`, the one that goes on, does not need of the body (`ClientRequest.release`). A request with a
 * span keeps its parse: the span reads the request's `max_tokens` when it ends (SPEC 12), and a translated plan's
 * bytes are gone by then.
 */
function releaseFor(x: Exchange, request: ClientRequest, plan: RoutePlan): void {
  request.release({ bytes: plan.call === undefined || plan.upstreamFormat === request.endpoint.format, parse: plan.call === undefined || plan.transform.estimatesInput === true || x.span !== undefined });
}

/**
 * Step 7 of the request path (docs/ARCHITECTURE.md).
 * Sends the request along its route (SPEC section 10, Routing and Fallback), planning it for each upstream
 * in turn: the routed one, then its `fallback` list, while an upstream fails before any byte reached the client (no
 * answer, a timeout before the headers, no key, or 429/500/502/503/529 after its own retries). A 4xx other than 429
 * is an answer like any other. A plan whose transform has committed (a slow translated stream that started early)
 * falls back no further. Never throws: how it ended, and where it went on the way, is the result (the handler keeps
 * it for the record, and throws a failure on to the error boundary).
 */
export async function forward(x: Exchange, ctx: GatewayContext, request: ClientRequest, route: Route): Promise<Forwarded> {
  let { candidates } = route;
  const tried: TriedUpstream[] = [];
  // SPEC 11, Your own login: a request with its own credential reaches only upstreams that spend no key of the gateway's.
  if (request.ownCredential) {
    const routed = candidates[0]!;
    if (routed.usesGatewayKey) return { kind: "failed", upstream: routed, tried, plan: undefined, error: needsLocalKey(route, routed) };
    candidates = candidates.filter((upstream) => !upstream.usesGatewayKey);
  }
  for (let i = 0; ; i++) {
    const upstream = candidates[i]!;
    const last = i === candidates.length - 1;
    let plan: RoutePlan;
    try {
      plan = await planRoute(x, ctx, request, route, upstream);
    } catch (error) {
      return { kind: "failed", upstream, tried, plan: undefined, error };
    }
    // No upstream is left to plan for: a translated plan's body is its own, and only a passthrough stream that
    // reports no usage reads the request again (its record's estimate).
    if (last) releaseFor(x, request, plan);
    if (plan.call === undefined) return { kind: "local", upstream, tried, plan };
    // A passthrough stream that reports no usage is recorded with the request's estimate, read as the hub reads it;
    // translators that cannot load leave the record without it, never the request unsent.
    if (plan.transform.estimatesInput) await request.hubReadable()?.catch(() => undefined);
    // SPEC 11, Budgets: over its budget (or the overall one), an upstream is not sent the request: it fails as if
    // before the first byte, so the fallback list goes on, or the budget's 429 is the answer. What the gateway
    // answers itself (a token count in a format the upstream does not serve) costs nothing, and is answered.
    const spent = ctx.spend.refusal(upstream, route.model);
    if (spent) {
      if (last) return { kind: "failed", upstream, tried, plan: undefined, error: budgetSpent(spent, ctx.config.configFile) };
      tried.push({ upstream: upstream.name, failure: `budget ${spent.period}`, durationMs: 0 });
      continue;
    }
    const { transform } = plan;
    const { capture } = x;
    transform.sending(upstream.name);
    const started = performance.now();
    // SPEC 12: the upstream is told the gateway's span as its parent, in place of the client's trace context.
    if (x.span) Object.assign(plan.call.headers, x.span.upstreamHeaders);
    let outcome: UpstreamReply | UpstreamError;
    try {
      outcome = await upstream.send({ signal: x.abort, onAttempt: capture && ((attempt) => capture.attempt({ upstream: upstream.name, ...attempt })), ...plan.call });
    } catch (error) {
      if (x.abort.aborted) return { kind: "failed", upstream, tried, plan, error: x.abort.reason instanceof Error ? x.abort.reason : error };
      if (!(error instanceof UpstreamError) || last || transform.committed()) return { kind: "failed", upstream, tried, plan, error };
      outcome = error;
    } finally {
      transform.settled();
      // Sent whole, or never to be sent again: no retry follows an answer, and a fallback plans its own body.
      plan.call.body = undefined;
    }
    if (!(outcome instanceof UpstreamError)) {
      if (last || transform.committed() || !FALLBACK_STATUS.has(outcome.status)) {
        // A candidate with fallbacks left answered: no other plan will be made, so its reply streams without the rest.
        if (!last) releaseFor(x, request, plan);
        return { kind: "answered", upstream, tried, plan, reply: outcome };
      }
      await outcome.body.dump().catch(() => undefined);
    }
    tried.push({ upstream: upstream.name, failure: failureOf(outcome), durationMs: Math.round(performance.now() - started) });
  }
}
