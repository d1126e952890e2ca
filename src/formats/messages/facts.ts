import { arrayOf, count, holdsObject, textPaths } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Message = { role?: unknown; content?: unknown };

/**
 * What a Messages request says about itself: `image` blocks (in tool results too), `tools`, `thinking`, and the
 * texts of its system prompt and first user message, block by block (Claude Code sends its own system blocks, and
 * `<system-reminder>` parts, before a subagent's prompt).
 */
export const messagesFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.messages, (block) => block.type === "image"),
  tools: (body) =>
    arrayOf<{ name?: unknown }>(body.tools)
      .map((tool) => tool.name)
      .filter((name): name is string => typeof name === "string"),
  maxTokens: (body) => count(body.max_tokens),
  asksThinking(body) {
    const type = (body.thinking as { type?: unknown } | undefined)?.type;
    return typeof type === "string" && type !== "disabled";
  },
  tagPlaces(body) {
    const system = textPaths(body.system, ["system"]);
    const user = arrayOf<Message>(body.messages).findIndex((message) => message.role === "user");
    return user === -1 ? system : [...system, ...textPaths(arrayOf<Message>(body.messages)[user]!.content, ["messages", user, "content"])];
  },
};
