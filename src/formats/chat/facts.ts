import { arrayOf, asksEffort, holdsObject, leadingText } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Message = { role?: unknown; content?: unknown };
type Tool = { type?: unknown; name?: unknown; function?: { name?: unknown }; custom?: { name?: unknown } };

/** What a Chat Completions request says about itself: `image_url` parts, `tools`, `reasoning_effort`, system and user text. */
export const chatFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.messages, (part) => part.type === "image_url"),
  tools: (body) =>
    arrayOf<Tool>(body.tools)
      .map((tool) => tool.function?.name ?? tool.custom?.name ?? tool.name ?? tool.type)
      .filter((name): name is string => typeof name === "string"),
  asksThinking: (body) => asksEffort(body.reasoning_effort),
  leadingTexts(body) {
    const messages = arrayOf<Message>(body.messages);
    const first = messages[0];
    const system = first?.role === "system" || first?.role === "developer" ? leadingText(first.content) : undefined;
    const user = leadingText(messages.find((message) => message.role === "user")?.content);
    return [system, user].filter((text): text is string => text !== undefined);
  },
};
