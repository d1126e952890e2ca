import type { RouteRule, RouteWhen } from "../config/index.js";
import type { BodyPath } from "../formats/fields.js";
import type { FoundTag } from "../request/route-tag.js";
import type { Destination } from "../routing/model-reach.js";
import type { Routable, RouteExplanation } from "../routing/router.js";
import { formatTable } from "./table.js";

/** A rule's conditions as the config gives them: `model claude-haiku-*, image true`; `always` for none. */
export function describeWhen(when: RouteWhen): string {
  const parts = Object.entries(when).map(([key, value]) => `${key} ${String(value)}`);
  return parts.length > 0 ? parts.join(", ") : "always";
}

/** The rules in the order they are asked: name, conditions, upstream, model sent. */
export function rulesTable(rules: readonly RouteRule[]): string {
  return formatTable(
    [{ title: "#", align: "right" }, { title: "NAME" }, { title: "WHEN" }, { title: "TO" }, { title: "MODEL" }],
    rules.map((rule, i) => [String(i + 1), rule.name, describeWhen(rule.when), rule.to, rule.model ?? "as asked"]),
  );
}

/** `system[0].text`: where in the body a text is. */
export const describePath = (path: BodyPath): string => path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");

/** Where each tag was found, and that it goes whatever its name (SPEC 11). */
export function tagLines(tags: readonly FoundTag[], rules: readonly RouteRule[]): string[] {
  return tags.map((tag, i) => {
    const named = rules.some((rule) => rule.when.tag === tag.name);
    const effect = i > 0 ? "" : named ? "" : ", which no rule asks for: routed as if there were none";
    return `Tag: <gateway-route>${tag.name}</gateway-route> opens ${describePath(tag.path)}${effect}; removed before the request leaves`;
  });
}

/** The dry run in words: each rule asked until one holds (each condition held ✔ or failed ✖, with what the request says), then where the request goes. */
export function explanationText(explanation: RouteExplanation<Routable>): string[] {
  const { route, rules } = explanation;
  const winner = rules.findIndex((rule) => rule.held);
  const lines: string[] = [];
  rules.forEach(({ rule, held, conditions }, i) => {
    if (winner >= 0 && i > winner) return void lines.push(`${i + 1}. ${rule.name}: not asked (rule ${rules[winner]!.rule.name} holds)`);
    lines.push(`${i + 1}. ${rule.name}: ${held ? "holds" : "does not hold"}`);
    if (conditions.length === 0) lines.push("     ✔ no condition");
    for (const check of conditions) lines.push(`     ${check.held ? "✔" : "✖"} ${check.key} ${String(check.value)}: ${check.seen}`);
  });
  if (rules.length === 0) lines.push("No routes in the config.");
  const [first, ...fallback] = route.candidates;
  const model = route.model === undefined ? "no model named" : route.target === undefined ? `model ${route.model}` : `model ${route.model} (asked for ${route.asked})`;
  const why =
    route.rule !== undefined
      ? `by rule ${route.rule}`
      : explanation.byModels === "listed"
        ? "no rule holds: its models list it"
        : "no rule holds: the default upstream";
  lines.push("", `Sent to: ${first!.name}, ${model}, ${why}`);
  if (fallback.length > 0) lines.push(`Then, if it fails: ${fallback.map((upstream) => upstream.name).join(", ")}`);
  return lines;
}

/** Where a model id (or pattern) can go, and the first way found for each upstream. */
export function reachTable(destinations: readonly Destination[]): string {
  return formatTable([{ title: "UPSTREAM" }, { title: "HOW" }], destinations.map((destination) => [destination.upstream, destination.how]));
}
