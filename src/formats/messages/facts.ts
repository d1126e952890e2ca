import { arrayOf, holdsObject, leadingText } from "../fields.js";
import type { RequestFacts } from "../format-types.js";

type Message = { role?: unknown; content?: unknown };

/**
 * What a Messages request says about itself: `image` blocks (in tool results too), `tools`, `thinking`, and the
 * start of each system block (Claude Code sends its own blocks before a subagent's prompt) and of the first user
 * message.
 */
export const messagesFacts: RequestFacts = {
  hasImage: (body) => holdsObject(body.messages, (block) => block.type === "image"),
  tools: (body) =>
    arrayOf<{ name?: unknown }>(body.tools)
      .map((tool) => tool.name)
      .filter((name): name is string => typeof name === "string"),
  asksThinking(body) {
    const type = (body.thinking as { type?: unknown } | undefined)?.type;
    return typeof type === "string" && type !== "disabled";
  },
  leadingTexts(body) {
    const system = typeof body.system === "string" ? [body.system] : arrayOf<{ text?: unknown }>(body.system).map((block) => block.text);
    const user = leadingText(arrayOf<Message>(body.messages).find((message) => message.role === "user")?.content);
    return [...system, user].filter((text): text is string => typeof text === "string");
  },
};
