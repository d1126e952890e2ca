import type { GatewayConfig, RouteRule } from "../config/index.js";
import type { FamilyName } from "../formats/index.js";
import { globCovers, globsOverlap, globTest, isPattern } from "../glob.js";
import { createModelAliases } from "./model-aliases.js";
import { createModelTable } from "./model-table.js";

/** What routing reads of a config: its upstreams, aliases and rules. */
export type RoutingConfig = Pick<GatewayConfig, "upstreams" | "defaultUpstream" | "models" | "routes">;

/** Team catalogs' model ids (SPEC 12), each with its team upstream's name: routed as if that upstream's `models` listed them, after every listed one. */
export type CataloguedIds = readonly (readonly [id: string, upstream: string])[];

/** An upstream a model can reach, and the first way found. */
export interface Destination {
  upstream: string;
  /** `rule background`, `models of local`, `the default upstream`, `fallback of local`. */
  how: string;
}

/** The exact `when.model` ids of rules that start with `claude`, each once with the first rule naming it. */
export function routedClaudeIds(routes: readonly RouteRule[]): Map<string, RouteRule> {
  const found = new Map<string, RouteRule>();
  for (const rule of routes) {
    const model = rule.when.model;
    if (model !== undefined && !isPattern(model) && model.startsWith("claude") && !found.has(model)) found.set(model, rule);
  }
  return found;
}

/**
 * The ids a model list offers besides what the upstreams list: each exact alias (SPEC 7), in every shape; then, in
 * the messages shape only, each exact `when.model` of a rule that starts with `claude`, so that Claude Code's
 * `/model` picker offers it (SPEC 11, What today's tools need). In config order, each once.
 */
export function extraModelIds(config: Pick<RoutingConfig, "models" | "routes">, family: FamilyName): string[] {
  const aliases = Object.keys(config.models).filter((id) => !isPattern(id));
  return family === "messages" ? [...new Set([...aliases, ...routedClaudeIds(config.routes).keys()])] : aliases;
}

/** Whether `pattern` (an id or a pattern) can name a model that `when` (an id or a pattern) matches. */
const canMatch = (when: string, pattern: string): boolean => (isPattern(pattern) ? globsOverlap(when, pattern) : globTest(when)(pattern));

/** A rule whose only condition is its model (or none), matching every id of `pattern`: no rule or upstream after it is reached. */
const catchesAll = (rule: RouteRule, pattern: string): boolean =>
  Object.keys(rule.when).every((key) => key === "model") && (rule.when.model === undefined || globCovers(rule.when.model, pattern));

/**
 * Where a request for a model id, or for any id of a pattern (`claude*`), can be routed: the one question the model
 * picker's list, `gateway routes` and `gateway run claude`'s tool search ask (SPEC 11). The model's aliases apply
 * first (for a pattern, every alias key it shares an id with); then each rule that could hold for it (a rule's other
 * conditions may hold for some request, so only its `model` can rule it out), stopping at a rule that takes every such
 * request; then SPEC 10's `models` with the team catalogs' ids (`catalogued`, as the router has them), and the default;
 * and each of those upstreams' `fallback` lists. An upper bound: an upstream listed may be reached by no real request,
 * but none that can be reached is missing.
 */
export function reachOf(config: RoutingConfig, model: string, catalogued: CataloguedIds = []): Destination[] {
  const found = new Map<string, string>();
  const add = (upstream: string, how: string) => {
    if (!found.has(upstream)) found.set(upstream, how);
  };
  for (const id of afterAliases(config, model)) {
    let caught = false;
    for (const rule of config.routes) {
      if (rule.when.model !== undefined && !canMatch(rule.when.model, id)) continue;
      add(rule.to, `rule ${rule.name}`);
      if ((caught = catchesAll(rule, id))) break;
    }
    if (!caught) for (const [upstream, how] of byModels(config, id, catalogued)) add(upstream, how);
  }
  for (const [name] of [...found]) {
    for (const fallback of config.upstreams.find((upstream) => upstream.name === name)?.fallback ?? []) add(fallback, `fallback of ${name}`);
  }
  return [...found].map(([upstream, how]) => ({ upstream, how }));
}

/** The models a request for `model` is routed by: its alias's target, or for a pattern each target it may reach and itself. */
function afterAliases(config: RoutingConfig, model: string): string[] {
  if (!isPattern(model)) return [createModelAliases(config.models).resolve(model) ?? model];
  const keys = Object.keys(config.models);
  const targets = keys.filter((key) => globsOverlap(key, model)).map((key) => config.models[key]!);
  return keys.some((key) => globCovers(key, model)) ? targets : [...targets, model];
}

/**
 * SPEC 10 for a model id or pattern: the upstreams whose `models` may list it (a team catalog's ids as the router
 * orders them: after every listed id, before the patterns), and the default unless one surely does.
 */
function byModels(config: RoutingConfig, model: string, catalogued: CataloguedIds): [string, string][] {
  const listed = config.upstreams.flatMap((upstream) => upstream.models.map((entry) => [entry, upstream.name] as const));
  if (!isPattern(model)) {
    const found = createModelTable([...listed, ...catalogued]).lookup(model);
    if (found === undefined) return [[config.defaultUpstream, "the default upstream"]];
    return [[found, found === createModelTable(listed).lookup(model) ? `models of ${found}` : `catalog of ${found}`]];
  }
  const inCatalogs = catalogued.filter(([id]) => globTest(model)(id)).map(([, upstream]): [string, string] => [upstream, `catalog of ${upstream}`]);
  const reached = [
    ...config.upstreams.filter((upstream) => upstream.models.some((entry) => globsOverlap(entry, model))).map((upstream): [string, string] => [upstream.name, `models of ${upstream.name}`]),
    ...inCatalogs,
  ];
  const covered = config.upstreams.some((upstream) => upstream.models.some((entry) => globCovers(entry, model)));
  return covered ? reached : [...reached, [config.defaultUpstream, "the default upstream"]];
}

/**
 * Whether Claude Code may search its tools (SPEC 11): every upstream a `claude*` model can be routed to is of kind
 * `anthropic` (tool search needs Anthropic's own API: `defer_loading` and `tool_reference` reach nothing else); a
 * team catalog's `claude*` ids (`catalogued`) go to their team upstream.
 */
export function claudeOnAnthropicOnly(config: RoutingConfig, catalogued: CataloguedIds = []): boolean {
  const kinds = new Map(config.upstreams.map((upstream) => [upstream.name, upstream.kind]));
  return reachOf(config, "claude*", catalogued).every((destination) => kinds.get(destination.upstream) === "anthropic");
}
