import type { HubMessage, HubRequest, HubTool } from "../../translate/hub.js";
import { asReminder } from "../../translate/system-reminder.js";
import { fixSchema, needsSchemaFix } from "./schema-quirks.js";
import type { KindQuirks } from "../../translate/server-quirks.js";

/**
 * A chat request for an upstream of a kind (SPEC 11, Kinds): the hub request after the client's format reached it
 * and the upstream-dependent values were set (`translate/translate-request.ts`), changed only where the kind's
 * quirks say. Pure: a new request, the one given untouched. For `generic` (every quirk off) it equals the input.
 *
 * The chat upstream side applies it (`formats/chat/chat-upstream.ts` `fromHub`), after `translateRequest` set what
 * depends on the upstream's config: a request translated for any other format never meets a chat server's quirks.
 */
export function applyHubQuirks(quirks: KindQuirks, request: HubRequest): HubRequest {
  const out: HubRequest = { ...request };
  if (quirks.systemFirst) out.messages = systemFirst(out.messages);
  out.messages = out.messages.map((message) => replayedReasoning(message, quirks.reasoningField));
  if (out.tools && needsSchemaFix(quirks)) out.tools = out.tools.map((tool) => withSchema(tool, quirks));
  if (quirks.toolChoice === "strings" && typeof out.tool_choice === "object") namedAsRequired(out, out.tool_choice.function.name);
  if (out.reasoning_effort) effortInDialect(out, quirks.effortDialect);
  // A server that thinks unless told not to (DeepSeek's V4 models) is told not to when the client asked for no
  // reasoning: the client then never sees reasoning it could send back, and a thinking tool loop without it is refused.
  else if (quirks.effortDialect === "thinking_switch") out.thinking = { type: "disabled" };
  if (quirks.maxTokensField === "max_completion_tokens" && out.max_tokens !== undefined) {
    out.max_completion_tokens = out.max_tokens;
    delete out.max_tokens;
  }
  if (!quirks.promptCacheKey) delete out.prompt_cache_key;
  if (!quirks.priorityTier) delete out.service_tier;
  return out;
}

const textOf = (content: HubMessage["content"]): string =>
  typeof content === "string" ? content : (content ?? []).map((part) => ("text" in part ? part.text : "")).join("");

/**
 * One system message, first (vLLM's and llama.cpp's templates raise otherwise): the leading system and developer
 * messages joined into it, and each later one carried where it was as user text marked as system (never dropped:
 * SPEC 11), after the tool results of a call it interrupts, which must follow their call.
 */
function systemFirst(messages: readonly HubMessage[]): HubMessage[] {
  const isSystem = (message: HubMessage) => message.role === "system" || message.role === "developer";
  const leading = messages.findIndex((message) => !isSystem(message));
  const head = leading < 0 ? messages : messages.slice(0, leading);
  const out: HubMessage[] = head.length ? [{ role: "system", content: head.map((message) => textOf(message.content)).join("\n\n") }] : [];
  let held: string[] = [];
  for (const message of leading < 0 ? [] : messages.slice(leading)) {
    if (isSystem(message)) {
      held.push(asReminder(textOf(message.content)));
      continue;
    }
    if (held.length && message.role !== "tool") {
      out.push({ role: "user", content: held.join("\n\n") });
      held = [];
    }
    out.push(message);
  }
  if (held.length) out.push({ role: "user", content: held.join("\n\n") });
  return out;
}

/** An assistant message's replayed reasoning under the field the kind reads (or none, or as it was). */
function replayedReasoning(message: HubMessage, field: KindQuirks["reasoningField"]): HubMessage {
  if (message.role !== "assistant" || field === "as-seen") return message;
  const text = message.reasoning_content ?? message.reasoning;
  if (text === undefined) return message;
  const { reasoning_content: _content, reasoning: _reasoning, ...rest } = message;
  return field === "none" ? rest : { ...rest, [field]: text };
}

const withSchema = (tool: HubTool, quirks: KindQuirks): HubTool => ({
  ...tool,
  function: { ...tool.function, parameters: fixSchema(tool.function.parameters, quirks) as HubTool["function"]["parameters"] },
});

/**
 * A named tool choice for a server that reads only strings: `required`, with only that tool offered, which forces
 * the same call (llama.cpp's own messages endpoint says `required` for a named tool, see its kind).
 */
function namedAsRequired(request: HubRequest, name: string): void {
  request.tool_choice = "required";
  request.tools = (request.tools ?? []).filter((tool) => tool.function.name === name);
}

/** `reasoning_effort` as the kind's chat endpoint takes it. */
function effortInDialect(request: HubRequest, dialect: KindQuirks["effortDialect"]): void {
  const effort = request.reasoning_effort;
  if (dialect === "reasoning_object") {
    delete request.reasoning_effort;
    request.reasoning = { effort };
  } else if (dialect === "thinking_switch") {
    delete request.reasoning_effort;
    request.thinking = { type: "enabled" };
  } else if (dialect === "reasoning_effort_and_template_switch") {
    const kwargs = typeof request.chat_template_kwargs === "object" && request.chat_template_kwargs !== null ? request.chat_template_kwargs : {};
    request.chat_template_kwargs = { ...kwargs, enable_thinking: true, thinking: true };
  }
}
