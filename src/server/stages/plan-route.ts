import type { IncomingMessage } from "node:http";
import { badRequest } from "../../errors/index.js";
import { DEFAULT_ANTHROPIC_VERSION, FORMATS, type Endpoint, type ReplyShape, type WireFormat } from "../../formats/index.js";
import { translateRequest, type ReasoningSeal, type ReplyHints, type TranslateContext } from "../../translate/index.js";
import { randomIds } from "../../translate/ids.js";
import { stripGatewayReasoning } from "../../translate/strip-gateway-reasoning.js";
import { upstreamRequestHeaders, withoutClientFormatHeaders } from "../../upstream/header-policy.js";
import type { Upstream, UpstreamCall } from "../../upstream/upstream.js";
import { withModelBytes, type ModelChoice } from "./alias-model.js";
import type { ClientRequest } from "./read-request.js";
import { requireJson } from "./check-body.js";

/** An upstream call as planned; the abort signal is the exchange's, added when it is sent. */
export type PlannedCall = Omit<UpstreamCall, "signal">;

/** How one upstream serves one request: as it came, translated to a format it speaks, or counted locally. */
export type RoutePlan =
  | { kind: "passthrough"; upstream: Upstream; call: PlannedCall; shape: ReplyShape }
  | { kind: "translate"; upstream: Upstream; call: PlannedCall; from: WireFormat; to: WireFormat; hints: ReplyHints; tctx: TranslateContext }
  | { kind: "count"; upstream: Upstream; from: WireFormat; body: Record<string, unknown>; tctx: TranslateContext };

/** The first format, in the registry's order, that `upstream` serves and the gateway can translate into. */
function targetFormat(upstream: Upstream): WireFormat | undefined {
  return FORMATS.find((format) => upstream.serves(format.name) && format.upstream !== undefined);
}

function translateContext(upstream: Upstream, model: ModelChoice, to: WireFormat | undefined, seal: ReasoningSeal): TranslateContext {
  const upstreamModel = model.upstream ?? "";
  return {
    clientModel: model.asked ?? upstreamModel,
    upstreamModel,
    maxOutputTokens: upstream.config.maxOutputTokens,
    reasoningEffort: upstream.config.reasoning === "effort",
    keepsBillingHeader: to?.keepsBillingHeader === true,
    seal,
    ids: randomIds,
  };
}

/**
 * Stage 7a: the request as `upstream` will get it (SPEC section 10, Translation). Paths that are not model calls go
 * as they came, in the client's family layout; a model call in a format the upstream serves goes as it came (the
 * aliased model's bytes aside, and reasoning the gateway made removed); any other model call is translated into the
 * first format the upstream serves, in the order chat, messages, responses, gemini; a token count in a format it does
 * not serve is answered by the gateway itself.
 */
export function planRoute(req: IncomingMessage, query: string, endpoint: Endpoint, request: ClientRequest, model: ModelChoice, upstream: Upstream, seal: ReasoningSeal): RoutePlan {
  const { family } = endpoint;
  const format = endpoint.format;
  if (format === undefined || upstream.serves(format.name)) {
    const stripped = format === undefined ? undefined : stripGatewayReasoning(request.bytes, seal);
    const bytes = stripped ? Buffer.from(JSON.stringify(model.target === undefined ? stripped : { ...stripped, model: model.target })) : withModelBytes(request.bytes, model.target);
    const rest = model.target !== undefined && endpoint.pathModel !== undefined ? family.paths.withModel(endpoint.rest, model.target) : endpoint.rest;
    return {
      kind: "passthrough",
      upstream,
      shape: format ?? family,
      call: {
        family,
        method: req.method ?? "GET",
        path: `${rest}${family.auth.upstreamQuery(query)}`,
        headers: upstreamRequestHeaders(req.rawHeaders, req.headers.connection),
        version: family.auth.version(req.headers),
        body: bytes,
      },
    };
  }
  const body = requireJson(request);
  if (endpoint.kind === "count") return { kind: "count", upstream, from: format, body, tctx: translateContext(upstream, model, undefined, seal) };
  const to = targetFormat(upstream);
  if (to === undefined) {
    throw badRequest(`The upstream ${upstream.name} serves only ${upstream.config.formats.join(", ")} requests, and the gateway cannot translate ${format.name} requests into those. Route this model to an upstream that serves chat or messages.`, {
      code: "untranslatable_route",
    });
  }
  const tctx = translateContext(upstream, model, to, seal);
  const translated = translateRequest(format.client, to.upstream!, body, request.stream, tctx);
  const toFamily = to.family;
  return {
    kind: "translate",
    upstream,
    from: format,
    to,
    hints: translated.hints,
    tctx,
    call: {
      family: toFamily,
      method: "POST",
      path: to.generatePath(tctx.upstreamModel, request.stream),
      headers: Object.assign(withoutClientFormatHeaders(upstreamRequestHeaders(req.rawHeaders, req.headers.connection)), {
        "content-type": "application/json",
        accept: request.stream ? "text/event-stream" : "application/json",
      }),
      version: toFamily.auth.needsVersion ? DEFAULT_ANTHROPIC_VERSION : undefined,
      body: JSON.stringify(translated.body),
    },
  };
}
