import type { GatewayConfig, RouteRule, UpstreamConfig } from "../config/index.js";
import type { ClientRequest } from "../request/client-request.js";
import type { ReasoningSeal } from "../translate/index.js";
import type { Upstream } from "../upstream/upstream.js";
import { conditionsOf, type Condition } from "./conditions.js";
import type { ModelAliases } from "./model-aliases.js";
import { createModelTable } from "./model-table.js";

/** What the router needs of an upstream: its name and config (the server's `Upstream`, or a config alone for a dry run). */
export interface Routable {
  readonly name: string;
  readonly config: UpstreamConfig;
}

/** The upstreams a router chooses from. */
export interface RoutableSet<U extends Routable> {
  readonly all: readonly U[];
  readonly default: U;
  named(name: string): U | undefined;
}

/** The upstreams of a config as a router chooses from them, without opening any (`gateway routes`' dry run). */
export function routableConfig(config: Pick<GatewayConfig, "upstreams" | "defaultUpstream">): RoutableSet<Routable> {
  const all = config.upstreams.map((upstream) => ({ name: upstream.name, config: upstream }));
  const byName = new Map(all.map((upstream) => [upstream.name, upstream]));
  return { all, default: byName.get(config.defaultUpstream) ?? all[0]!, named: (name) => byName.get(name) };
}

/** Where a request goes: the model after its alias (or its rule), and the upstreams to try for it, in order. */
export interface Route<U extends Routable = Upstream> {
  /** What the client asked for; undefined when the request names no model. */
  asked: string | undefined;
  /** The id sent instead: the rule's `model` (SPEC 11), else the catalog id an alias turned it into (SPEC 7); undefined when neither applied. */
  target: string | undefined;
  /** What is sent upstream: the target, else the asked id. */
  model: string | undefined;
  /** The routed upstream, then its `fallback` list (SPEC 10, Fallback). */
  candidates: readonly U[];
  /** The rule of `routes` that decided (SPEC 11, Routes); undefined while SPEC 10's rules decide. */
  rule: string | undefined;
}

/** One condition of a rule as a dry run checked it. */
export interface ConditionCheck {
  key: Condition["key"];
  value: Condition["value"];
  held: boolean;
  /** What the request says on this point. */
  seen: string;
}

/** Why a request goes where it goes: every rule with each of its conditions checked, and the route. */
export interface RouteExplanation<U extends Routable> {
  route: Route<U>;
  rules: { rule: RouteRule; held: boolean; conditions: ConditionCheck[] }[];
  /** With no rule holding, what SPEC 10 went by: `models` of the upstream that lists the model, or the default. */
  byModels: "listed" | "default" | undefined;
}

/** Routes each request of one gateway; `explain` is the dry run, asking the same conditions. */
export interface Router<U extends Routable = Upstream> {
  /** The request's route: at once, unless a token condition needs the tokenizer. */
  route(request: ClientRequest): Route<U> | Promise<Route<U>>;
  explain(request: ClientRequest): Promise<RouteExplanation<U>>;
}

export interface RouterOptions<U extends Routable> {
  upstreams: RoutableSet<U>;
  aliases: ModelAliases;
  /** `routes` of the config, already checked (each `to` names an upstream). */
  routes: readonly RouteRule[];
  /** For the token estimate: reasoning the gateway signed is read as the hub reads it. */
  seal: ReasoningSeal;
  /** A team upstream's catalog ids (SPEC 12), routed to it as if its `models` listed them, after every listed one. */
  catalogIds?: ((upstream: U) => readonly string[]) | undefined;
  /** The context window `upstream` knows for `model` (a team catalog's, SPEC 12): what a `minInputTokens` share is of. */
  windowOf?: ((upstream: U, model: string) => number | undefined) | undefined;
}

interface CompiledRule {
  rule: RouteRule;
  /** The conditions that answer at once, then the one that may need the tokenizer. */
  conditions: Condition[];
}

/** Whether every condition holds, asked in order and stopping at the first that does not. */
function holds(conditions: readonly Condition[], request: ClientRequest, model: string | undefined, from = 0): boolean | Promise<boolean> {
  for (let i = from; i < conditions.length; i++) {
    const held = conditions[i]!.holds(request, model);
    if (held === false) return false;
    if (held !== true) return held.then((yes) => yes && holds(conditions, request, model, i + 1));
  }
  return true;
}

/**
 * Step 6 of the request path (docs/ARCHITECTURE.md).
 * The one place a request's upstream is decided. The model after its alias (SPEC 7); then the first rule of `routes`
 * whose every condition holds (SPEC 11) sends it to its `to`, with the rule's `model` if it has one; with none, SPEC
 * 10's rules: the first upstream in file order whose `models` lists that exact id, else the first whose pattern
 * matches it, else the default, and the default for a request that names no model. The tables are built once per
 * gateway; a config without `routes` asks nothing of the request.
 */
export function createRouter<U extends Routable>(options: RouterOptions<U>): Router<U> {
  const { upstreams, aliases, seal } = options;
  const listed = upstreams.all.flatMap((upstream) => upstream.config.models.map((model) => [model, upstream] as const));
  const catalogued = options.catalogIds ? upstreams.all.flatMap((upstream) => options.catalogIds!(upstream).map((model) => [model, upstream] as const)) : [];
  const table = createModelTable([...listed, ...catalogued]);
  // Each upstream with its own fallback list behind it (that list only: the lists of the upstreams on it are not followed).
  const candidates = new Map(upstreams.all.map((upstream) => [upstream, [upstream, ...upstream.config.fallback.flatMap((name) => upstreams.named(name) ?? [])]]));
  const byModel = (model: string | undefined): U => (model === undefined ? upstreams.default : (table.lookup(model) ?? upstreams.default));
  // A share of a window is of the requested model's window, as the upstream its id routes to (without rules) knows it.
  const windowOf = (model: string) => options.windowOf?.(byModel(model), model);
  const rules: CompiledRule[] = options.routes.map((rule) => ({ rule, conditions: conditionsOf(rule.when, seal, windowOf) }));

  function routeFor(asked: string | undefined, aliased: string | undefined, index: number): Route<U> {
    const chosen = rules[index]?.rule;
    const target = chosen?.model ?? aliased;
    const model = target ?? asked;
    const upstream = chosen ? upstreams.named(chosen.to)! : byModel(model);
    return { asked, target, model, candidates: candidates.get(upstream)!, rule: chosen?.name };
  }

  /** The index of the first rule that holds from `from` on, or -1. */
  function firstRule(request: ClientRequest, model: string | undefined, from: number): number | Promise<number> {
    for (let i = from; i < rules.length; i++) {
      const held = holds(rules[i]!.conditions, request, model);
      if (held === true) return i;
      if (held !== false) return held.then((yes) => (yes ? i : firstRule(request, model, i + 1)));
    }
    return -1;
  }

  const aliasOf = (asked: string | undefined) => (asked !== undefined && aliases.any ? aliases.resolve(asked) : undefined);

  return {
    route(request) {
      const asked = request.model;
      const aliased = aliasOf(asked);
      if (rules.length === 0) return routeFor(asked, aliased, -1);
      const index = firstRule(request, aliased ?? asked, 0);
      return typeof index === "number" ? routeFor(asked, aliased, index) : index.then((i) => routeFor(asked, aliased, i));
    },
    async explain(request) {
      const asked = request.model;
      const aliased = aliasOf(asked);
      const model = aliased ?? asked;
      const checked = [];
      for (const { rule, conditions } of rules) {
        const checks: ConditionCheck[] = [];
        for (const condition of conditions) {
          checks.push({ key: condition.key, value: condition.value, held: await condition.holds(request, model), seen: await condition.seen(request, model) });
        }
        checked.push({ rule, held: checks.every((check) => check.held), conditions: checks });
      }
      const index = checked.findIndex((check) => check.held);
      const route = routeFor(asked, aliased, index);
      const byModels = index >= 0 ? undefined : model !== undefined && table.lookup(model) !== undefined ? "listed" : "default";
      return { route, rules: checked, byModels };
    },
  };
}
