import { badRequest } from "../../errors/index.js";
import { FORMATS, type WireFormat } from "../../formats/index.js";
import { kindNamed } from "../../kinds/index.js";
import type { ClientRequest } from "../../request/client-request.js";
import { untagged } from "../../request/route-tag.js";
import type { Route } from "../../routing/router.js";
import { addAttribution } from "../../team/attribution.js";
import { translateRequest, type TranslateContext } from "../../translate/index.js";
import { randomIds } from "../../translate/ids.js";
import { stripGatewayReasoning } from "../../translate/strip-gateway-reasoning.js";
import { upstreamRequestHeaders, withoutClientFormatHeaders } from "../../upstream/header-policy.js";
import type { Upstream, UpstreamCall } from "../../upstream/upstream.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { findTopLevelString, replaceString } from "../json-scan.js";
import { LocalCount } from "../reply/local-count.js";
import { PassthroughReply } from "../reply/passthrough.js";
import type { ReplyTransform } from "../reply/transform.js";
import { TranslatedJsonReply } from "../reply/translated-json.js";
import { TranslatedStreamReply } from "../reply/translated-stream.js";
import { requireJson } from "./check-body.js";

/** An upstream call as planned; the abort signal is the exchange's, added when it is sent. */
export type PlannedCall = Omit<UpstreamCall, "signal">;

/**
 * How one upstream serves one request, and the transform that will deliver its reply: the call as it came
 * (passthrough), or translated to a format the upstream speaks; or no call at all, a count the gateway makes.
 */
export type RoutePlan = SendPlan | CountPlan;

/** A call to send, and the transform that will deliver its reply. */
export interface SendPlan {
  upstream: Upstream;
  call: PlannedCall;
  /** The format the upstream is asked in: the client's as it came, or the one translated into; undefined for a path of none. */
  upstreamFormat: WireFormat | undefined;
  transform: ReplyTransform;
}

/** A token count the gateway answers itself, in the name of the upstream the request was routed to. */
export interface CountPlan {
  upstream: Upstream;
  call: undefined;
  upstreamFormat: undefined;
  count: LocalCount;
}

/** The formats a translated request can go out in, as a refusal names them: `chat or messages`. */
const translatableTo = (): string =>
  FORMATS.filter((format) => format.translatesInto)
    .map((format) => format.name)
    .join(" or ");

/** The first format, in the registry's order, that `upstream` serves and the gateway can translate into. */
function targetFormat(upstream: Upstream): WireFormat | undefined {
  return FORMATS.find((format) => upstream.serves(format.name) && format.translatesInto);
}

function translateContext(upstream: Upstream, route: Route, ctx: GatewayContext, path: string): TranslateContext {
  const upstreamModel = route.model ?? "";
  return {
    path,
    clientModel: route.asked ?? upstreamModel,
    upstreamModel,
    maxOutputTokens: upstream.config.maxOutputTokens,
    contextWindow: upstream.contextWindow(upstreamModel),
    reasoningEffort: upstream.config.reasoning === "effort",
    // A messages request is translated only for a server that does not serve messages: none reads the line.
    keepsBillingHeader: false,
    quirks: kindNamed(upstream.config.kind).quirks,
    seal: ctx.seal,
    ids: randomIds,
  };
}

/**
 * `bytes` with the top-level `model` value replaced by `target`: only the model's bytes change, every other byte goes
 * upstream as it came. The same buffer when there is nothing to replace.
 */
export function withModelBytes(bytes: Buffer | undefined, target: string | undefined): Buffer | undefined {
  if (!bytes || target === undefined) return bytes;
  const field = findTopLevelString(bytes, "model");
  return field ? replaceString(bytes, field, target) : bytes;
}

/**
 * Step 7 of the request path (docs/ARCHITECTURE.md), for each upstream tried.
 * The request as `upstream` will get it (SPEC section 10, Translation), and how its reply will reach the
 * client. Paths that are not model calls go as they came, in the client's family layout; a model call in a format
 * the upstream serves goes as it came (the aliased model's bytes aside; reasoning the gateway made, a route tag (SPEC
 * 11) and what the upstream's kind refuses left out: `WireFormat.passthroughQuirks`); any
 * other model call is translated into the first format the upstream serves, in the order chat, messages, responses,
 * gemini; a token count in a format it does not serve is answered by the gateway itself. A translated request waits
 * for its two formats' translators the first time they are needed (`WireFormat.translators`, issue 52).
 */
export function planRoute(x: Exchange, ctx: GatewayContext, request: ClientRequest, route: Route, upstream: Upstream): RoutePlan | Promise<RoutePlan> {
  const { head } = x;
  const { endpoint, query } = request;
  const { family, format } = endpoint;
  // SPEC 11, Your own login: the request's own credential (headers, a Gemini `key=`) reaches `key: "client"` upstreams only.
  const own = request.ownCredential && upstream.takesClientCredential;
  const clientHeaders = upstreamRequestHeaders(head.rawHeaders, head.headers.connection, own);
  if (upstream.config.team) addAttribution(clientHeaders, head.headers);
  if (format === undefined || upstream.serves(format.name)) {
    // The bytes go as they came unless something in them must not leave: reasoning the gateway signed, a route tag.
    const stripped = format === undefined ? undefined : stripGatewayReasoning(request.bytes, ctx.seal);
    const quirks = kindNamed(upstream.config.kind).quirks;
    const forKind = format?.passthroughQuirks?.applies(quirks) && request.json ? format.passthroughQuirks.apply(quirks, clientHeaders, stripped ?? request.json) : undefined;
    const changed = forKind ?? stripped;
    const rebuilt = changed ? untagged(changed, format!.facts.tagPlaces(changed)) : request.withoutRouteTags();
    const bytes = rebuilt ? Buffer.from(JSON.stringify(route.target === undefined || typeof rebuilt.model !== "string" ? rebuilt : { ...rebuilt, model: route.target })) : withModelBytes(request.bytes, route.target);
    const rest = route.target !== undefined && endpoint.pathModel !== undefined ? family.paths.withModel(endpoint.rest, route.target) : endpoint.rest;
    return {
      upstream,
      call: {
        family,
        method: head.method,
        path: `${rest}${own ? query : family.auth.upstreamQuery(query)}`,
        headers: clientHeaders,
        version: family.auth.version(head.headers),
        body: bytes,
      },
      upstreamFormat: format,
      transform: new PassthroughReply(x, format ?? family, upstream.name, request.stream && format?.usage.unreported?.streamWithout(request.bytes, () => request.json) === true),
    };
  }
  // A body that is not a JSON object is the client's 400 before anything the route refuses. Past it, the request's
  // one hub (never undefined for a JSON object) is what a count counts and a translation starts from, shared with its
  // token rules and every other candidate.
  requireJson(request);
  if (endpoint.kind === "count") {
    const loading = request.hubReadable();
    if (loading) return loading.then(() => planRoute(x, ctx, request, route, upstream));
    return { upstream, call: undefined, upstreamFormat: undefined, count: new LocalCount(x, format, request.hub(ctx.seal)!.request, upstream.name) };
  }
  const to = targetFormat(upstream);
  if (to === undefined) {
    throw badRequest(`The upstream ${upstream.name} serves only ${upstream.config.formats.join(", ")} requests, and the gateway cannot translate ${format.name} requests into those. Route this model to an upstream that serves ${translatableTo()}.`, {
      code: "untranslatable_route",
    });
  }
  const client = format.translators.loaded?.client;
  const target = to.translators.loaded?.upstream;
  if (!client || !target) {
    return Promise.all([format.translators.load(), to.translators.load()]).then(([, into]) => {
      // `translatesInto` said so before the load: a format whose loaded side disagrees would plan here forever.
      if (!into.upstream) throw new Error(`The ${to.name} format says requests translate into it, but its translators have no upstream side.`);
      return planRoute(x, ctx, request, route, upstream);
    });
  }
  const tctx = translateContext(upstream, route, ctx, endpoint.rest);
  const translated = translateRequest(request.hub(ctx.seal)!, target, request.stream, tctx);
  const t = { from: format, client, to, target, hints: translated.hints, tctx, upstream, secrets: ctx.secrets };
  return {
    upstream,
    call: {
      family: to.family,
      method: "POST",
      path: to.generatePath(tctx.upstreamModel, request.stream),
      headers: Object.assign(withoutClientFormatHeaders(clientHeaders, own), {
        "content-type": "application/json",
        accept: request.stream ? "text/event-stream" : "application/json",
      }),
      version: to.family.auth.defaultVersion,
      body: Buffer.from(JSON.stringify(translated.body)),
    },
    upstreamFormat: to,
    transform: request.stream ? new TranslatedStreamReply(x, t, query, ctx) : new TranslatedJsonReply(x, t),
  };
}
