import { isRecord } from "../../parse-json.js";
import type { Json } from "../../translate/hub.js";
import { turnsOf } from "./system-prompt.js";
import { blocksOf, type Block } from "./wire.js";

/**
 * The Anthropic betas whose body fields the gateway knows: the `anthropic-beta` values that switch each feature on
 * and how its fields leave a messages body when the upstream's kind withholds them (SPEC 11: "a body field whose
 * beta is withheld is left out with it"). The feature names and values are Claude Code's own table (2.1.197, the
 * binary's `FE("tool_search", "advanced-tool-use-2025-11-20")` ... list); the fields are those of
 * anthropics/anthropic-sdk-typescript@bfa9197 `src/resources/beta/messages/messages.ts` (`MessageCreateParamsBase`,
 * `BetaTool*`, `BetaAdvisorTool20260301`).
 */
export interface BetaFeature {
  readonly name: string;
  /** The values that turn it on (either one). */
  readonly betas: readonly string[];
  /** The body without the feature's fields; the same object when it has none. Never drops what a turn says. */
  readonly strip: (body: Json) => Json;
}

type Tool = Record<string, unknown>;

const without = (object: Json, keys: readonly string[]): Json => {
  if (!keys.some((key) => key in object)) return object;
  const copy = { ...object };
  for (const key of keys) delete copy[key];
  return copy;
};

/** `tools` kept where `keep` holds, each then passed through `each`; the body itself when nothing changed. */
function mapTools(body: Json, keep: (tool: Tool) => boolean, each: (tool: Tool) => Tool = (tool) => tool): Json {
  if (!Array.isArray(body.tools)) return body;
  const tools = (body.tools as unknown[]).filter((tool) => !isRecord(tool) || keep(tool)).map((tool) => (isRecord(tool) ? each(tool) : tool));
  const same = tools.length === body.tools.length && tools.every((tool, i) => tool === (body.tools as unknown[])[i]);
  return same ? body : { ...body, tools };
}

/**
 * Each message's blocks through `edit` (an empty result leaves the message out: an assistant turn made only of
 * advisor blocks said nothing the upstream can read); the body itself when nothing changed.
 */
function mapBlocks(body: Json, edit: (block: Block) => Block[]): Json {
  if (!Array.isArray(body.messages)) return body;
  let changed = false;
  const messages: unknown[] = [];
  for (const message of body.messages as unknown[]) {
    if (!isRecord(message) || !Array.isArray(message.content)) {
      messages.push(message);
      continue;
    }
    const blocks = blocksOf(message.content).flatMap(edit);
    const same = blocks.length === message.content.length && blocks.every((block, i) => block === (message.content as unknown[])[i]);
    changed ||= !same;
    if (same) messages.push(message);
    else if (blocks.length) messages.push({ ...message, content: blocks });
  }
  return changed ? { ...body, messages } : body;
}

const isToolSearchTool = (tool: Tool): boolean => typeof tool.type === "string" && tool.type.startsWith("tool_search_tool_");

/**
 * A tool result's `tool_reference` blocks left out; one left with nothing says `[tool references]`, as Claude Code
 * itself sends a result whose references a server would refuse (its count_tokens path, the binary's `aLf`).
 */
function withoutToolReferences(block: Block): Block[] {
  if (block.type === "server_tool_use" && typeof block.name === "string" && block.name.startsWith("tool_search_tool_")) return [];
  if (block.type === "tool_search_tool_result") return [];
  if (block.type !== "tool_result" || !Array.isArray(block.content)) return [block];
  const kept = block.content.filter((part) => !(isRecord(part) && part.type === "tool_reference"));
  if (kept.length === block.content.length) return [block];
  return [{ ...block, content: kept.length ? kept : [{ type: "text", text: "[tool references]" }] }];
}

/** Claude Code's `isAdvisorBlock`: the advisor's call and its result. */
const isAdvisorBlock = (block: Block): boolean => block.type === "advisor_tool_result" || (block.type === "server_tool_use" && block.name === "advisor");

/**
 * Inline `role: "system"` messages carried in place as `<system-reminder>` user text (the text is never dropped:
 * SPEC 11), as Claude Code itself falls back when a server refuses them ("falling back to <system-reminder> body").
 * The turns are `turnsOf`'s, the chat translation's own; a user turn then lists its tool results first, since they
 * must open the turn that answers the calls.
 */
function systemMessagesInPlace(body: Json): Json {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  if (!messages.some((message) => isRecord(message) && message.role === "system")) return body;
  const turns = turnsOf(messages).map(({ role, blocks }) => ({
    role,
    content: role === "user" ? [...blocks.filter((block) => block.type === "tool_result"), ...blocks.filter((block) => block.type !== "tool_result")] : blocks,
  }));
  return { ...body, messages: turns };
}

export const BETA_FEATURES: readonly BetaFeature[] = [
  // `context_management`: the SDK's "Context management configuration"; Claude Code sends it only with this beta.
  { name: "context_management", betas: ["context-management-2025-06-27"], strip: (body) => without(body, ["context_management"]) },
  {
    // Tool search: deferred tools, the search tools, their blocks, and references in tool results. The advanced
    // tool use beta also carries `input_examples` and `allowed_callers` (pydantic/pydantic-ai#3550).
    name: "tool_search",
    betas: ["advanced-tool-use-2025-11-20", "tool-search-tool-2025-10-19"],
    strip: (body) =>
      mapBlocks(
        mapTools(body, (tool) => !isToolSearchTool(tool), (tool) => without(tool, ["defer_loading", "input_examples", "allowed_callers"])),
        withoutToolReferences,
      ),
  },
  {
    name: "advisor_tool",
    betas: ["advisor-tool-2026-03-01"],
    strip: (body) => mapBlocks(mapTools(body, (tool) => tool.type !== "advisor_20260301"), (block) => (isAdvisorBlock(block) ? [] : [block])),
  },
  // `diagnostics` ("Request-level diagnostics ... prompt-cache divergence"): sent by Claude Code only with this beta.
  { name: "cache_diagnosis", betas: ["cache-diagnosis-2026-04-07"], strip: (body) => without(body, ["diagnostics"]) },
  // `speed: "fast"`: fast mode (platform.claude.com/docs/en/build-with-claude/fast-mode).
  { name: "speed", betas: ["fast-mode-2026-02-01"], strip: (body) => without(body, ["speed"]) },
  // `eager_input_streaming` on a tool: "disabled for this tool even if the fine-grained-tool-streaming beta is active".
  {
    name: "fine_grained_tool_streaming",
    betas: ["fine-grained-tool-streaming-2025-05-14"],
    strip: (body) => mapTools(body, () => true, (tool) => without(tool, ["eager_input_streaming"])),
  },
  { name: "mid_conversation_system", betas: ["mid-conversation-system-2026-04-07"], strip: systemMessagesInPlace },
];
