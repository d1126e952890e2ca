import type { HubContentPart, HubMessage, HubToolCall, ReasoningField } from "../../translate/hub.js";
import type { ToolOutput } from "./request-content.js";
import { asReminder } from "../../translate/system-reminder.js";

type Draft =
  | { role: "system" | "user"; parts: HubContentPart[] }
  | { role: "assistant"; texts: string[]; calls: HubToolCall[]; reasoning: { text: string; field: ReasoningField } | undefined }
  | { role: "tool"; tool_call_id: string; content: string };

type Assistant = Extract<Draft, { role: "assistant" }>;

const content = (parts: HubContentPart[]): string | HubContentPart[] =>
  parts.every((part) => part.type === "text") ? parts.map((part) => (part as { text: string }).text).join("\n\n") : parts;

function message(draft: Draft): HubMessage {
  if (draft.role !== "assistant") return draft.role === "tool" ? draft : { role: draft.role, content: content(draft.parts) };
  return {
    role: "assistant",
    content: draft.texts.length > 0 ? draft.texts.join("\n\n") : null,
    ...(draft.calls.length > 0 ? { tool_calls: draft.calls } : {}),
    ...(draft.reasoning ? { [draft.reasoning.field]: draft.reasoning.text } : {}),
  };
}

/**
 * Builds chat messages from Responses items in order, with chat's rules: consecutive system (or user) text is one
 * message, and system text comes only first; assistant text and the tool calls after it are one assistant message
 * (chat wants every call of a turn on one message, followed by their tool messages); reasoning the gateway sealed
 * rides on the next assistant message; images from tool results follow the run of tool messages as one user
 * message; a result whose call is not in the history becomes user text (a lone tool message is a 400 on chat
 * servers).
 */
export function createConversation() {
  const drafts: Draft[] = [];
  const callIds = new Set<string>();
  let reasoning: Assistant["reasoning"];
  let images: HubContentPart[] = [];

  function flushImages(): void {
    if (images.length === 0) return;
    const parts = images;
    images = [];
    say("user", parts);
  }

  /**
   * System or user text. A system message after the conversation has begun becomes user text at its place, marked as
   * system (`asReminder`), as a messages request's does: the chat templates of Qwen and llama.cpp reject a system
   * message that is not the first (Codex sends developer messages mid-conversation when a setting changes).
   */
  function say(role: "system" | "user", parts: HubContentPart[]): void {
    flushImages();
    reasoning = undefined;
    if (parts.length === 0) return;
    const late = role === "system" && drafts.some((draft) => draft.role !== "system");
    const as = late ? "user" : role;
    const said = late ? parts.map((part) => (part.type === "text" ? { ...part, text: asReminder(part.text) } : part)) : parts;
    const last = drafts.at(-1);
    if (last?.role === as) last.parts.push(...said);
    else drafts.push({ role: as, parts: [...said] });
  }

  function assistant(): Assistant {
    flushImages();
    let last = drafts.at(-1);
    if (last?.role !== "assistant") {
      last = { role: "assistant", texts: [], calls: [], reasoning: undefined };
      drafts.push(last);
    }
    if (reasoning) {
      last.reasoning = last.reasoning ? { field: reasoning.field, text: `${last.reasoning.text}\n\n${reasoning.text}` } : reasoning;
      reasoning = undefined;
    }
    return last;
  }

  return {
    say,
    /** Assistant text (already joined within its item). */
    assistantText(text: string): void {
      if (text) assistant().texts.push(text);
    },
    /** A tool call on the current assistant message. */
    call(id: string, name: string, args: string): void {
      assistant().calls.push({ id, type: "function", function: { name, arguments: args } });
      callIds.add(id);
    },
    /** Reasoning for the next assistant message. */
    think(text: string, field: ReasoningField): void {
      reasoning = reasoning ? { field, text: `${reasoning.text}\n\n${text}` } : { text, field };
    },
    /** A tool's result: a tool message right after its call, or user text when its call is not in the history. */
    result(id: string, output: ToolOutput): void {
      if (!callIds.has(id)) {
        say("user", [{ type: "text", text: `Output of tool call ${id}:\n${output.text}` }, ...output.images]);
        return;
      }
      const count = output.images.length;
      const note = count === 0 ? "" : `[${count === 1 ? "image" : `${count} images`} in the next message]`;
      drafts.push({ role: "tool", tool_call_id: id, content: [output.text, note].filter(Boolean).join("\n") });
      images.push(...output.images);
    },
    messages(): HubMessage[] {
      flushImages();
      return drafts.map(message);
    },
  };
}

/** A conversation being built. */
export type Conversation = ReturnType<typeof createConversation>;
