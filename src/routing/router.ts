import type { ClientRequest } from "../request/client-request.js";
import type { Upstream } from "../upstream/upstream.js";
import type { UpstreamSet } from "../upstream/upstream-set.js";
import type { ModelAliases } from "./model-aliases.js";
import { createModelTable } from "./model-table.js";

/** Where a request goes: the model after its alias, and the upstreams to try for it, in order. */
export interface Route {
  /** What the client asked for; undefined when the request names no model. */
  asked: string | undefined;
  /** The catalog id an alias turned it into (SPEC section 7); undefined when no alias applied. */
  target: string | undefined;
  /** What is sent upstream and routed by: the target, else the asked id. */
  model: string | undefined;
  /** The routed upstream, then its `fallback` list (SPEC 10, Fallback). */
  candidates: readonly Upstream[];
  /** The rule of `routes` that decided (SPEC 11, Routes); undefined while SPEC 10's rules decide. */
  rule: string | undefined;
}

/** Routes each request of one gateway. */
export interface Router {
  route(request: ClientRequest): Route;
}

/**
 * The one place a request's upstream is decided (SPEC section 10, Routing): the model after its alias (SPEC 7), then
 * the first upstream in file order whose `models` lists that exact id, else the first whose pattern matches it, else
 * the default; a request that names no model goes to the default. The tables are built once per gateway.
 */
export function createRouter(upstreams: UpstreamSet, aliases: ModelAliases): Router {
  const table = createModelTable(upstreams.all.flatMap((upstream) => upstream.config.models.map((model) => [model, upstream] as const)));
  // Each upstream with its own fallback list behind it (that list only: the lists of the upstreams on it are not followed).
  const candidates = new Map(upstreams.all.map((upstream) => [upstream, [upstream, ...upstream.config.fallback.flatMap((name) => upstreams.named(name) ?? [])]]));
  return {
    route(request) {
      const asked = request.model;
      const target = asked !== undefined && aliases.any ? aliases.resolve(asked) : undefined;
      const model = target ?? asked;
      const routed = model === undefined ? upstreams.default : (table.lookup(model) ?? upstreams.default);
      return { asked, target, model, candidates: candidates.get(routed)!, rule: undefined };
    },
  };
}
