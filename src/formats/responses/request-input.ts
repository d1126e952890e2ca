import { isRecord } from "../../parse-json.js";
import { createHash } from "node:crypto";
import type { HubMessage, HubTool, Json } from "../../translate/hub.js";
import type { TranslateContext } from "../../translate/types.js";
import { createConversation, type Conversation } from "./conversation.js";
import { summaryText } from "../../translate/compaction-summary.js";
import { hubParts, toolOutput } from "./request-content.js";
import type { ToolNames } from "../../translate/tool-names.js";

const text = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);

/** OpenAI's limit on a tool-call id; ids from another provider's turns can be longer (research table E row 27). */
const MAX_CALL_ID = 64;

/** A call id a chat server accepts: as it is, or, past 64 characters, a hash of it (the same for the call and its result). */
export const chatCallId = (id: string): string =>
  id.length <= MAX_CALL_ID ? id : `call_${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;

interface Scope {
  conversation: Conversation;
  names: ToolNames;
  ctx: TranslateContext;
  /** Whether the request declares a function named `local_shell`, the only way a `local_shell_call` is expressible. */
  localShell: boolean;
}

function message(item: Json, { conversation }: Scope): void {
  const parts = hubParts(item.content);
  if (item.role === "assistant") {
    conversation.assistantText(parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""));
  } else if (item.role === "user") {
    conversation.say("user", parts);
  } else if (item.role === "system" || item.role === "developer") {
    // Not every chat server knows `developer`; `system` means the same to all of them.
    conversation.say("system", parts);
  }
}

function item(entry: Json, scope: Scope): void {
  const { conversation, names } = scope;
  const type = entry.type ?? (entry.role === undefined ? undefined : "message");
  const callId = text(entry.call_id);
  switch (type) {
    case "message":
      return message(entry, scope);
    case "agent_message": {
      // Another Codex agent's message: the model reads it as input, with who sent it.
      const from = text(entry.author);
      return conversation.say("user", [...(from ? [{ type: "text" as const, text: `Message from ${from}:` }] : []), ...hubParts(entry.content)]);
    }
    case "reasoning": {
      // Only reasoning this gateway sealed can be replayed; OpenAI's own encrypted reasoning means nothing upstream.
      const opened = typeof entry.encrypted_content === "string" ? scope.ctx.seal.open(entry.encrypted_content) : undefined;
      if (opened?.text) conversation.think(opened.text, opened.field);
      return;
    }
    case "function_call": {
      const name = text(entry.name);
      if (!callId || !name) return;
      const args = typeof entry.arguments === "string" ? entry.arguments : JSON.stringify(entry.arguments ?? {});
      return conversation.call(chatCallId(callId), names.chatName(name, text(entry.namespace)), args);
    }
    case "custom_tool_call": {
      const name = text(entry.name);
      if (!callId || !name) return;
      const input = typeof entry.input === "string" ? entry.input : "";
      return conversation.call(chatCallId(callId), names.chatName(name, text(entry.namespace), true), JSON.stringify({ input }));
    }
    case "local_shell_call":
      if (callId && scope.localShell) conversation.call(chatCallId(callId), "local_shell", JSON.stringify(entry.action ?? {}));
      return;
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output":
      if (callId) conversation.result(chatCallId(callId), toolOutput(entry.output));
      return;
    case "compaction":
    case "compaction_summary":
    case "context_compaction": {
      // A summary this gateway made when Codex compacted (SPEC 11): a user message, since a system message past the
      // first is refused by some chat templates and moved or dropped by others, and the model must read it in place.
      const summary = summaryText(entry, scope.ctx.seal);
      if (summary) conversation.say("user", [{ type: "text", text: summary }]);
      return;
    }
    default:
      // additional_tools (read as tools), web_search_call, item_reference, image_generation_call, tool_search_*,
      // compaction_trigger and the like: nothing a chat server can take.
      return;
  }
}

/**
 * The chat messages of a Responses request: `instructions` first as a system message, then `input` (a string is
 * one user message; items are read in order).
 */
export function hubMessages(body: Json, tools: HubTool[], names: ToolNames, ctx: TranslateContext): HubMessage[] {
  const conversation = createConversation();
  const instructions = text(body.instructions);
  if (instructions) conversation.say("system", [{ type: "text", text: instructions }]);
  if (typeof body.input === "string") {
    conversation.say("user", hubParts(body.input));
  } else if (Array.isArray(body.input)) {
    const scope: Scope = { conversation, names, ctx, localShell: tools.some((tool) => tool.function.name === "local_shell") };
    for (const entry of body.input) if (isRecord(entry)) item(entry, scope);
  }
  return conversation.messages();
}
