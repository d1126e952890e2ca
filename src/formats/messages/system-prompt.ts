import { isRecord } from "../../parse-json.js";
import type { HubMessage } from "../../translate/hub.js";
import { type Block, blocksOf, textOf } from "./wire.js";
import { asReminder } from "../../translate/system-reminder.js";

/**
 * Claude Code's attribution line (`x-anthropic-billing-header: cc_version=...; cch=<hash>;`): its hash changes
 * every turn, so the prompt's first bytes change every turn and a local server's prefix cache never hits
 * (research table E row 23: a full re-prefill of ~24K tokens per turn).
 */
const BILLING_LINE = /^x-anthropic-billing-header:/;
const BILLING_LINE_ANYWHERE = /^x-anthropic-billing-header:/m;

const withoutBillingLines = (text: string): string =>
  text
    .split("\n")
    .filter((line) => !BILLING_LINE.test(line))
    .join("\n");

/**
 * A messages `system` (a string or text blocks) without the billing line, for a server that does not read it: a
 * block left empty goes, every other block keeps its fields (`cache_control` included). The value given when it has
 * no such line.
 */
export function systemWithoutBillingLines(system: unknown): unknown {
  if (typeof system === "string") return BILLING_LINE_ANYWHERE.test(system) ? withoutBillingLines(system) : system;
  if (!Array.isArray(system) || !system.some((block) => isRecord(block) && typeof block.text === "string" && BILLING_LINE_ANYWHERE.test(block.text))) return system;
  return system.flatMap((block) => {
    if (!isRecord(block) || typeof block.text !== "string" || !BILLING_LINE_ANYWHERE.test(block.text)) return [block];
    const text = withoutBillingLines(block.text);
    return text.trim() ? [{ ...block, text }] : [];
  });
}

/**
 * `system` (a string or text blocks) as one chat system message, block texts joined with a blank line, the
 * billing line left out unless the upstream is Anthropic's own; none when nothing is left. `cache_control` and
 * any other block field are dropped (strict chat servers answer 400 to them).
 */
export function systemToHub(system: unknown, keepsBillingHeader: boolean): HubMessage[] {
  const texts = blocksOf(system)
    .map((block) => (keepsBillingHeader ? textOf(block) : withoutBillingLines(textOf(block))))
    .filter((text) => text.trim());
  return texts.length ? [{ role: "system", content: texts.join("\n\n") }] : [];
}

/** One conversation turn, as blocks, once inline system messages are folded away. */
export interface Turn {
  role: "user" | "assistant";
  blocks: Block[];
}


/**
 * The conversation as turns. Claude Code puts `role: "system"` messages inside `messages` (mid-conversation
 * reminders), and the chat templates of Qwen and llama.cpp reject a system message that is not the first, so
 * each one's text becomes a `<system-reminder>` text block (unless it is one already) in a user turn:
 * - at the start of the next user message when the next message that is not a system one is a user message
 *   (after its tool results, once those become tool messages: they must follow their calls);
 * - else at the end of the user message just before it;
 * - else in a user message of its own, at its place (between two assistant messages, or first).
 */
export function turnsOf(messages: unknown): Turn[] {
  const list = Array.isArray(messages) ? messages.filter(isRecord) : [];
  const turns: Turn[] = [];
  let carried: Block[] = [];
  list.forEach((message, at) => {
    if (message.role === "system") {
      const text = blocksOf(message.content).map(textOf).filter(Boolean).join("\n\n");
      if (!text.trim()) return;
      const reminder: Block = { type: "text", text: asReminder(text) };
      const previous = turns.at(-1);
      if (list.slice(at + 1).find((next) => next.role !== "system")?.role === "user") carried.push(reminder);
      else if (previous?.role === "user") previous.blocks.push(reminder);
      else turns.push({ role: "user", blocks: [reminder] });
      return;
    }
    if (message.role === "assistant") {
      turns.push({ role: "assistant", blocks: blocksOf(message.content) });
      return;
    }
    turns.push({ role: "user", blocks: [...carried, ...blocksOf(message.content)] });
    carried = [];
  });
  return turns;
}
