import { performance } from "node:perf_hooks";
import { UpstreamError } from "../../errors/index.js";
import type { UpstreamReply } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { EventStreamWriter, type StreamFraming } from "../reply/event-stream-writer.js";
import type { ModelChoice } from "./alias-model.js";
import { planRoute, type RoutePlan } from "./plan-route.js";
import type { ClientRequest } from "./read-request.js";
import type { Endpoint } from "./resolve.js";

/** Statuses that send a request on to the next upstream of the fallback list, once the upstream's own retries are spent. */
const FALLBACK_STATUS: ReadonlySet<number> = new Set([429, 500, 502, 503, 529]);

/** What came back: the plan that got an answer and the answer, or a count the gateway makes itself. */
export type Forwarded =
  | { plan: Extract<RoutePlan, { kind: "passthrough" }>; reply: UpstreamReply }
  | { plan: Extract<RoutePlan, { kind: "translate" }>; reply: UpstreamReply; stream: EventStreamWriter | undefined }
  | { plan: Extract<RoutePlan, { kind: "count" }> };

/** Gemini streams a JSON array to a client that leaves out `alt=sse`; everything else streams server-sent events. */
const framingOf = (endpoint: Endpoint, query: string): StreamFraming =>
  endpoint.family.name === "gemini" && new URLSearchParams(query).get("alt") !== "sse" ? "json-array" : "sse";

/** Why an upstream was left for the next one, for the record: `upstream 429`, `unreachable`, `timeout`, `no key`. */
const failureOf = (outcome: UpstreamReply | UpstreamError): string => (outcome instanceof UpstreamError ? outcome.failure : `upstream ${outcome.status}`);

/**
 * Stage 7: routes the request (SPEC section 10, Routing) and sends it, walking the routed upstream's `fallback` list
 * while an upstream fails before any byte reached the client: no answer, a timeout before the headers, no key, or
 * 429/500/502/503/529 after its own retries. A 4xx other than 429 is an answer like any other. The last failure is
 * what the client gets. A translated messages stream whose upstream is slow to answer starts the client's stream
 * after `ctx.earlyStartMs`; from then on nothing falls back, and a failure becomes the stream's error event.
 */
export async function forward(x: Exchange, ctx: GatewayContext, endpoint: Endpoint, query: string, request: ClientRequest, model: ModelChoice): Promise<Forwarded> {
  const routed = ctx.upstreams.route(model.upstream);
  const candidates = [routed, ...ctx.upstreams.fallbacks(routed)];
  for (let i = 0; ; i++) {
    const upstream = candidates[i]!;
    const last = i === candidates.length - 1;
    x.draft.upstream = upstream.name;
    x.draft.echo = upstream.isEcho;
    const plan = planRoute(x.req, query, endpoint, request, model, upstream, ctx.seal);
    x.draft.upstreamFormat = plan.kind === "translate" ? plan.to : plan.kind === "passthrough" ? endpoint.format : undefined;
    if (plan.kind === "count") return { plan };
    const stream = plan.kind === "translate" && request.stream ? new EventStreamWriter(x, plan.client.streamFromHub(plan.hints, plan.tctx), framingOf(endpoint, query), ctx.keepAliveMs) : undefined;
    x.eventStream = stream;
    const early = stream && plan.kind === "translate" && plan.from === "messages" ? setTimeout(() => stream.open({ "x-gateway-upstream": upstream.name }), ctx.earlyStartMs) : undefined;
    const started = performance.now();
    let outcome: UpstreamReply | UpstreamError;
    try {
      const { capture } = x.draft;
      outcome = await upstream.send({ signal: x.abort, onAttempt: capture && ((attempt) => capture.attempt({ upstream: upstream.name, ...attempt })), ...plan.call });
    } catch (error) {
      if (x.abort.aborted) throw x.abort.reason instanceof Error ? x.abort.reason : error;
      if (!(error instanceof UpstreamError) || last || stream?.opened) throw error;
      outcome = error;
    } finally {
      clearTimeout(early);
    }
    if (!(outcome instanceof UpstreamError)) {
      if (last || stream?.opened || !FALLBACK_STATUS.has(outcome.status)) {
        return plan.kind === "translate" ? { plan, reply: outcome, stream } : { plan, reply: outcome };
      }
      await outcome.body.dump().catch(() => undefined);
    }
    x.draft.tried.push({ upstream: upstream.name, failure: failureOf(outcome), durationMs: Math.round(performance.now() - started) });
  }
}
