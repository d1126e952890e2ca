import { arrayOf, asksEffort, holdsObject, textPaths } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Message = { role?: unknown; content?: unknown };
type Tool = { type?: unknown; name?: unknown; function?: { name?: unknown }; custom?: { name?: unknown } };

/** What a Chat Completions request says about itself: `image_url` parts, `tools`, `reasoning_effort`, the texts of its first system (or developer) and first user message. */
export const chatFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.messages, (part) => part.type === "image_url"),
  tools: (body) =>
    arrayOf<Tool>(body.tools)
      .map((tool) => tool.function?.name ?? tool.custom?.name ?? tool.name ?? tool.type)
      .filter((name): name is string => typeof name === "string"),
  asksThinking: (body) => asksEffort(body.reasoning_effort),
  tagPlaces(body) {
    const messages = arrayOf<Message>(body.messages);
    const first = messages[0];
    const system = first?.role === "system" || first?.role === "developer" ? textPaths(first.content, ["messages", 0, "content"]) : [];
    const user = messages.findIndex((message) => message.role === "user");
    return user === -1 ? system : [...system, ...textPaths(messages[user]!.content, ["messages", user, "content"])];
  },
};
