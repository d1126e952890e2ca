import { closest } from "./closest.js";
import { invalidConfig, type Source } from "./issue-message.js";
import { UPSTREAM_CHOICE, upstreamKind } from "./schemas/base-url.js";
import type { UpstreamEntry } from "./schemas/upstream-entry.js";
import type { RouteRule } from "./types.js";

/**
 * The names one field gives to another (SPEC sections 10 and 11): `upstream`, `fallback` and a route's `to` must
 * name upstreams that exist. Checked once every source is read, since `--upstream` may name an entry of the file.
 */

const suggestion = (name: string, names: readonly string[]): string => {
  if (names.length === 0) return " (there are none)";
  const near = closest(name, names);
  return near ? ` (did you mean "${near}"?)` : ` (one of ${names.map((known) => `"${known}"`).join(", ")})`;
};

/** `upstream` from `source`: a URL and `echo` need nothing; a name must be one of `names`. */
export function checkUpstreamName(source: Source, field: string, value: string, names: readonly string[]): void {
  if (upstreamKind(value) !== "name" || names.includes(value)) return;
  throw invalidConfig(source, field, `${UPSTREAM_CHOICE}${suggestion(value, names)}`, value);
}

/**
 * Each entry's `fallback`: names of other upstreams. `default` is one only when `upstream` makes it (`hasDefault`);
 * an entry falling back to itself would try the upstream that just failed.
 */
export function checkFallbacks(file: Source, entries: readonly (readonly [string, UpstreamEntry])[], hasDefault: boolean): void {
  const names = [...(hasDefault ? ["default"] : []), ...entries.map(([name]) => name)];
  for (const [name, entry] of entries) {
    const field = `upstreams.${name}.fallback`;
    for (const target of entry.fallback ?? []) {
      if (target === name) throw invalidConfig(file, field, "names of other upstreams, not its own", target);
      if (names.includes(target)) continue;
      if (target === "default") {
        throw invalidConfig(file, field, 'names of upstreams: "default" exists only when "upstream" is a URL or "echo"', target);
      }
      throw invalidConfig(file, field, `names of upstreams${suggestion(target, names.filter((known) => known !== name))}`, target);
    }
  }
}

/** Each rule's `to` (SPEC 11, Routes): the name of an upstream, `default` included when `upstream` makes it. */
export function checkRoutes(file: Source, routes: readonly RouteRule[], names: readonly string[]): void {
  routes.forEach((rule, i) => {
    if (!names.includes(rule.to)) throw invalidConfig(file, `routes[${i}].to`, `the name of an upstream${suggestion(rule.to, names)}`, rule.to);
  });
}

/**
 * Where a file names upstream `name`, as field paths (`upstream`, `upstreams.b.fallback`, `routes[0].to`): what would
 * dangle if the entry went (`gateway remove` refuses then, SPEC 11).
 */
export function referencesTo(
  name: string,
  file: { upstream?: string | undefined; upstreams?: Readonly<Record<string, UpstreamEntry>> | undefined; routes?: readonly RouteRule[] | undefined },
): string[] {
  const places: string[] = [];
  if (file.upstream === name) places.push("upstream");
  for (const [other, entry] of Object.entries(file.upstreams ?? {})) {
    if (other !== name && entry.fallback?.includes(name)) places.push(`upstreams.${other}.fallback`);
  }
  (file.routes ?? []).forEach((rule, i) => {
    if (rule.to === name) places.push(`routes[${i}].to (rule ${rule.name})`);
  });
  return places;
}
