import { arrayOf, asksEffort, count, holdsObject, openingTextPaths } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Tool = { type?: unknown; name?: unknown; tools?: unknown };
type Item = { type?: unknown; role?: unknown; content?: unknown; tools?: unknown };

/** A declared tool's names: a namespace's members, a function or custom tool's name, a hosted tool's type (`web_search`). */
const namesOf = (tool: Tool): unknown[] => (tool.type === "namespace" ? arrayOf<Tool>(tool.tools).flatMap(namesOf) : [tool.name ?? tool.type]);

/**
 * What a Responses request says about itself: `input_image` parts (in tool outputs too), the tools of `tools` and of
 * every `additional_tools` input item (where recent Codex declares them), `reasoning.effort`, `instructions`, and the
 * developer or system messages of `input` before its first user message, and that one.
 */
export const responsesFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.input, (part) => part.type === "input_image"),
  tools(body) {
    const items = arrayOf<Item>(body.input).filter((item) => item.type === "additional_tools");
    return [...arrayOf<Tool>(body.tools), ...items.flatMap((item) => arrayOf<Tool>(item.tools))]
      .flatMap(namesOf)
      .filter((name): name is string => typeof name === "string");
  },
  asksThinking: (body) => asksEffort((body.reasoning as { effort?: unknown } | undefined)?.effort),
  maxTokens: (body) => count(body.max_output_tokens),
  tagPlaces(body) {
    const instructions = typeof body.instructions === "string" ? [["instructions"]] : [];
    return [...instructions, ...(typeof body.input === "string" ? [["input"]] : openingTextPaths(body.input, ["input"]))];
  },
};
