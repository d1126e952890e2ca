import { isRecord } from "../../parse-json.js";
import type { HubContentPart, HubMessage, HubToolCall, Json, ReasoningField } from "../../translate/hub.js";
import type { ReasoningSeal } from "../../translate/types.js";
import { field, objectField, objectsField, stringField } from "./gemini-fields.js";
import type { ToolNames } from "../../translate/tool-names.js";

/**
 * Gemini `contents` as chat messages. The hard part is pairing: a Gemini `functionCall` may have no `id`, and
 * Gemini CLI then makes one up and sends it back only in the `functionResponse.id` (the history's call may still
 * lack it), while chat wants every tool message to name the call it answers. So a call without an id takes the
 * id of the response that answers it in the turns that follow (matched by name, in order), else a deterministic
 * `call_<turn>_<n>`; a response takes the unanswered call with its id, else the oldest unanswered call with its
 * name. Ids are never derived from names alone, so two calls to one tool never share one (research table E row 22).
 */

/** A call that was made and not yet answered. */
interface OpenCall {
  id: string;
  /** The Gemini name (responses name their call this way). */
  name: string;
}

/** An image as a chat image part; any other file as a short note, so the model knows something was attached. */
function mediaPart(part: Json): HubContentPart | undefined {
  const inline = objectField(part, "inlineData");
  const file = objectField(part, "fileData");
  if (!inline && !file) return undefined;
  const mime = stringField(inline ?? file, "mimeType") ?? "";
  if (inline) {
    if (mime.startsWith("image/")) return { type: "image_url", image_url: { url: `data:${mime};base64,${stringField(inline, "data") ?? ""}` } };
    return { type: "text", text: `[${mime || "binary"} attachment not sent: this model is reached through an API that takes only text and images]` };
  }
  const uri = stringField(file, "fileUri") ?? "";
  if (mime.startsWith("image/") && uri) return { type: "image_url", image_url: { url: uri } };
  return { type: "text", text: `[file ${uri} (${mime || "unknown type"}) not sent: this model is reached through an API that takes only text and images]` };
}

/** Visible text of a part: thoughts are the model's own reasoning and never become text (research C3). */
function visibleText(part: Json): string | undefined {
  if (field(part, "thought") === true) return undefined;
  const text = stringField(part, "text");
  return text ? text : undefined;
}

/** A tool message's content: Gemini CLI's `{output: "..."}` as its text, any other response as JSON. */
function responseContent(response: Json): string {
  const value = field(response, "response");
  const output = (value as { output?: unknown } | undefined)?.output;
  return typeof output === "string" ? output : JSON.stringify(value ?? {});
}

/** Ids that responses in the turns after `turn` (up to the next model turn) carry, with their names, minus `known`. */
function answersAhead(contents: readonly Json[], turn: number, known: ReadonlySet<string>): OpenCall[] {
  const answers: OpenCall[] = [];
  for (let next = turn + 1; next < contents.length && stringField(contents[next], "role") !== "model"; next++) {
    for (const part of objectsField(contents[next], "parts")) {
      const response = objectField(part, "functionResponse");
      const id = stringField(response, "id");
      if (id && !known.has(id)) answers.push({ id, name: stringField(response, "name") ?? "" });
    }
  }
  return answers;
}

/** Takes the first entry of `list` that `matches` out of it. */
function take<T>(list: T[], matches: (entry: T) => boolean): T | undefined {
  const index = list.findIndex(matches);
  return index < 0 ? undefined : list.splice(index, 1)[0];
}

/**
 * The reasoning the gateway sealed into the `thoughtSignature`s of a model turn's parts, in order, under the field it
 * came from. Google's own signatures and Gemini CLI's stand-in (`skip_thought_signature_validator`) open to nothing.
 */
function sealedReasoning(parts: readonly Json[], seal: ReasoningSeal): { text: string; field: ReasoningField } | undefined {
  let found: { text: string; field: ReasoningField } | undefined;
  for (const part of parts) {
    const signature = stringField(part, "thoughtSignature");
    const opened = signature ? seal.open(signature) : undefined;
    if (opened?.text) found = { text: (found?.text ?? "") + opened.text, field: found?.field ?? opened.field };
  }
  return found;
}

/**
 * A model turn: its visible text and all its calls in one assistant message (or nothing, when it has neither), with
 * the reasoning the gateway sealed into it under the upstream's field.
 */
function modelTurn(contents: readonly Json[], turn: number, open: OpenCall[], names: ToolNames, seal: ReasoningSeal): HubMessage[] {
  const parts = objectsField(contents[turn], "parts");
  const calls = parts.map((part) => objectField(part, "functionCall")).filter((call) => call !== undefined);
  const known = new Set([...open.map((call) => call.id), ...calls.map((call) => stringField(call, "id")).filter((id) => id !== undefined)]);
  const answers = answersAhead(contents, turn, known);
  const toolCalls: HubToolCall[] = calls.map((call, n) => {
    const name = stringField(call, "name") ?? "";
    const id = stringField(call, "id") || take(answers, (answer) => answer.name === name)?.id || `call_${turn}_${n}`;
    open.push({ id, name });
    const args = field(call, "args");
    return { id, type: "function", function: { name: names.chatName(name), arguments: JSON.stringify(isRecord(args) ? args : {}) } };
  });
  const text = parts.map(visibleText).join("");
  if (!text && toolCalls.length === 0) return [];
  const reasoning = sealedReasoning(parts, seal);
  return [{ role: "assistant", content: text || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), ...(reasoning ? { [reasoning.field]: reasoning.text } : {}) }];
}

/**
 * A user turn (or `function`, the role older SDKs give responses): tool messages first, then one user message
 * with the turn's text and images, the images that came with the responses included (a chat tool message holds
 * text only, research table E row 10).
 */
function userTurn(content: Json, open: OpenCall[]): HubMessage[] {
  const tools: HubMessage[] = [];
  const user: HubContentPart[] = [];
  for (const part of objectsField(content, "parts")) {
    const response = objectField(part, "functionResponse");
    if (response) {
      const id = stringField(response, "id");
      const name = stringField(response, "name") ?? "";
      const call = (id && take(open, (entry) => entry.id === id)) || take(open, (entry) => entry.name === name);
      const text = responseContent(response);
      // A response to no call in the history: a tool message would be refused, so the model reads it as text.
      if (call) tools.push({ role: "tool", tool_call_id: call.id, content: text });
      else user.push({ type: "text", text: `[Result of ${name}]\n${text}` });
      for (const nested of objectsField(response, "parts")) {
        const media = mediaPart(nested);
        if (media) user.push(media);
      }
      continue;
    }
    const text = visibleText(part);
    const media = text === undefined ? mediaPart(part) : undefined;
    if (text !== undefined) user.push({ type: "text", text });
    else if (media) user.push(media);
  }
  if (user.length === 0) return tools;
  // Text alone goes as a string: the form every chat server takes, including those that refuse content lists.
  const textOnly = user.every((part) => part.type === "text");
  const message: HubMessage = { role: "user", content: textOnly ? user.map((part) => (part as { text: string }).text).join("\n") : user };
  return [...tools, message];
}

/** The conversation as chat messages, in order, with every tool call paired with its result. */
export function contentsToMessages(contents: readonly Json[], names: ToolNames, seal: ReasoningSeal): HubMessage[] {
  const open: OpenCall[] = [];
  return contents.flatMap((content, turn) => (stringField(content, "role") === "model" ? modelTurn(contents, turn, open, names, seal) : userTurn(content, open)));
}
