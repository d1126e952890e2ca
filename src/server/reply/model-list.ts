import { withAliases } from "../../formats/fields.js";
import type { Endpoint } from "../../formats/index.js";
import { parseJsonObject } from "../../parse-json.js";
import { clientResponseHeaders, upstreamRequestHeaders, withoutClientFormatHeaders } from "../../upstream/header-policy.js";
import { collectCatalog, type Catalog } from "../../upstream/model-catalog.js";
import { asksForCodexCatalog, codexCatalog, type CatalogModel } from "../../formats/responses/codex-catalog.js";
import { reachOf } from "../../routing/model-reach.js";
import type { UpstreamSet } from "../../upstream/upstream-set.js";
import type { Upstream } from "../../upstream/upstream.js";
import { unauthorized } from "../../errors/index.js";
import type { ClientRequest } from "../../request/client-request.js";
import type { Exchange } from "../exchange.js";
import type { GatewayContext } from "../gateway-context.js";
import { readText } from "./decoded-body.js";
import { relayPassthrough } from "./passthrough.js";
import { sendJson } from "./send-json.js";

/**
 * The upstreams a request with its own credential may list (SPEC 11: those that spend no key of the gateway's); none is
 * a 401 in the family's shape, as a model call routed to one would get.
 */
function withoutGatewayKeys(upstreams: UpstreamSet): UpstreamSet {
  const all = upstreams.all.filter((upstream) => !upstream.usesGatewayKey);
  if (all.length === 0) throw unauthorized("Every upstream uses a key of the gateway's, so listing models needs the local key: this request carries a credential of its own. Send the key printed by `gateway env`.");
  return { all, default: all.includes(upstreams.default) ? upstreams.default : all[0]!, named: upstreams.named, close: upstreams.close };
}

/**
 * `GET` of a model list (SPEC section 10, Model lists). A single upstream that lists in the asked shape: passthrough as
 * before, with the exact aliases appended when there are any. Otherwise the union of every upstream's catalog
 * (`collectCatalog`), then the aliases; `x-gateway-upstream` names the upstreams that answered and
 * `x-gateway-partial` those that did not; when none did, the default's error passes through.
 */
export async function answerModelList(x: Exchange, ctx: GatewayContext, request: ClientRequest, aliases: readonly string[], endpoint: Endpoint, query: string): Promise<void> {
  const { family } = endpoint;
  const upstreams = request.ownCredential ? withoutGatewayKeys(ctx.upstreams) : ctx.upstreams;
  const { all } = upstreams;
  const { headers } = x.head;
  const version = family.auth.version(headers);
  const clientHeaders = upstreamRequestHeaders(x.head.rawHeaders, headers.connection);
  // SPEC 11, Your own login: the request's own credential goes to `key: "client"` upstreams only.
  const ownHeaders = request.ownCredential ? upstreamRequestHeaders(x.head.rawHeaders, headers.connection, true) : clientHeaders;
  const headersFor = (upstream: Upstream) => (upstream.takesClientCredential ? ownHeaders : clientHeaders);
  // Format headers stay behind, but not the credential among them: Gemini's `x-goog-api-key` is one.
  const withoutFormatHeaders = (upstream: Upstream) => withoutClientFormatHeaders(headersFor(upstream), request.ownCredential && upstream.takesClientCredential);
  const codex = asksForCodexCatalog(family, query);
  if (!codex && all.length === 1 && all[0]!.listShape(family) === family) {
    const upstream = all[0]!;
    x.delivery.listedBy = upstream.name;
    // Aliases mean the gateway reads the body: ask for it uncompressed.
    const sent = aliases.length > 0 ? withoutFormatHeaders(upstream) : headersFor(upstream);
    const own = request.ownCredential && upstream.takesClientCredential;
    const reply = await upstream.send({ family, method: "GET", path: `${endpoint.rest}${own ? query : family.auth.upstreamQuery(query)}`, headers: sent, version, signal: x.abort });
    if (aliases.length === 0) return relayPassthrough(x, reply, family, { "x-gateway-upstream": upstream.name });
    const text = await readText(reply, upstream);
    const list = reply.status === 200 ? parseJsonObject(text) : undefined;
    const replyHeaders = clientResponseHeaders(reply.headers);
    for (const name of ["content-length", "content-encoding", "content-type"]) delete replyHeaders[name];
    replyHeaders["x-gateway-upstream"] = upstream.name;
    x.delivery.replyHeaders = reply.headers;
    if (list) return sendJson(x, reply.status, withAliases(family, list, aliases), replyHeaders);
    x.delivery.status = reply.status;
    x.sink.head(reply.status, Object.assign({}, replyHeaders, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }, x.cors));
    return void x.sink.end(text);
  }
  const catalog = await collectCatalog(upstreams, family, { headers: withoutFormatHeaders, version, signal: x.abort.signal });
  const partial: Record<string, string> = catalog.failed.length > 0 ? { "x-gateway-partial": catalog.failed.join(",") } : {};
  if (catalog.failure) {
    x.delivery.listedBy = catalog.failure.upstream.name;
    if ("error" in catalog.failure) throw catalog.failure.error;
    return relayPassthrough(x, catalog.failure.reply, family, { "x-gateway-upstream": catalog.failure.upstream.name, ...partial });
  }
  const names = catalog.answered.join(",");
  x.delivery.listedBy = names;
  if (codex) return sendJson(x, 200, codexCatalog(catalogModels(ctx, catalog, aliases)), { "x-gateway-upstream": names, ...partial });
  const listed = new Set(catalog.entries.map((entry) => entry.id));
  const union = withAliases(family, family.models.list(catalog.entries.map((entry) => entry.entry), {}), aliases.filter((alias) => !listed.has(alias)));
  sendJson(x, 200, union, { "x-gateway-upstream": names, ...partial });
}

/**
 * What Codex's catalog says of each model of the union and each alias (SPEC 12): the upstream a request for it is
 * routed to first (`reachOf`, the team catalogs' ids included), that upstream's context window for the model after its alias, and whether it takes a
 * reasoning effort. The lists just read teach each upstream the windows they carry (vLLM's `max_model_len`, ...).
 */
function catalogModels(ctx: GatewayContext, catalog: Catalog, aliases: readonly string[]): CatalogModel[] {
  for (const upstream of ctx.upstreams.all) upstream.learnWindows(catalog.entries.filter((entry) => entry.upstream === upstream.name).map((entry) => entry.entry));
  const listed = new Set(catalog.entries.map((entry) => entry.id));
  const ids = [...listed, ...aliases.filter((alias) => !listed.has(alias))];
  const catalogued = ctx.upstreams.all.flatMap((upstream) => (upstream.catalog()?.models ?? []).map((model) => [model.id, upstream.name] as const));
  return ids.map((id) => {
    const upstream = ctx.upstreams.named(reachOf(ctx.config, id, catalogued)[0]?.upstream ?? "") ?? ctx.upstreams.default;
    const model = ctx.aliases.resolve(id) ?? id;
    return { id, upstream: upstream.name, contextWindow: upstream.contextWindow(model), reasons: upstream.config.reasoning === "effort" };
  });
}
