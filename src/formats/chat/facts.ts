import { arrayOf, asksEffort, count, holdsObject, openingTextPaths } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Tool = { type?: unknown; name?: unknown; function?: { name?: unknown }; custom?: { name?: unknown } };

/** What a Chat Completions request says about itself: `image_url` parts, `tools`, `reasoning_effort`, the texts of its system (or developer) messages before the first user message, and that one's. */
export const chatFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.messages, (part) => part.type === "image_url"),
  tools: (body) =>
    arrayOf<Tool>(body.tools)
      .map((tool) => tool.function?.name ?? tool.custom?.name ?? tool.name ?? tool.type)
      .filter((name): name is string => typeof name === "string"),
  asksThinking: (body) => asksEffort(body.reasoning_effort),
  maxTokens: (body) => count(body.max_completion_tokens) ?? count(body.max_tokens),
  tagPlaces: (body) => openingTextPaths(body.messages, ["messages"]),
};
