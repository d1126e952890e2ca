import type { HubMessage, HubRequest, Json } from "../../translate/hub.js";
import type { ToolNameMap } from "../../translate/tool-names.js";
import type { ReplyHints, ToHub, TranslateContext } from "../../translate/types.js";
import { contentsToMessages } from "./gemini-contents.js";
import { field, objectField, objectsField, stringField } from "./gemini-fields.js";
import { includeThoughts, reasoningEffort, responseFormat, samplingFields } from "./gemini-generation.js";
import { createToolNames } from "../../translate/tool-names.js";
import { functionDeclarations, hubToolChoice, hubTools } from "./gemini-tools.js";

/** `systemInstruction` (a Content, or a bare string from hand-written clients) as one system message. */
function systemMessages(body: Json): HubMessage[] {
  const instruction = field(body, "systemInstruction");
  const text =
    typeof instruction === "string"
      ? instruction
      : objectsField(instruction, "parts")
          .map((part) => stringField(part, "text"))
          .filter((piece) => piece !== undefined && piece !== "")
          .join("\n");
  return text ? [{ role: "system", content: text }] : [];
}

/**
 * A `generateContent` / `streamGenerateContent` body as a chat request, built field by field (nothing of the
 * client's is spread into it: an unknown field is a 400 on strict chat servers). The model is not in a Gemini body
 * but in the path, so it comes from `ctx`. Neither is streaming: the caller sets `body.stream = true` for
 * `:streamGenerateContent` before calling this. Dropped: `safetySettings`, `cachedContent`, `labels`, thought
 * signatures but the gateway's own (those carry reasoning back: `gemini-contents.ts`), server-side tools.
 */
/** What a Gemini client's reply side is told: whether it asked for thoughts, whether its text is JSON, and the tool names that changed for chat. */
export interface GeminiHints extends ReplyHints {
  /** `thinkingConfig.includeThoughts`. */
  includeThoughts?: boolean;
  /** `responseMimeType` was JSON, so fenced JSON text is unwrapped. */
  jsonText?: boolean;
  toolNames?: ToolNameMap;
}

export function geminiToHub(body: Json, ctx: TranslateContext): ToHub<GeminiHints> {
  const config = objectField(body, "generationConfig");
  const declarations = functionDeclarations(body);
  const names = createToolNames();
  // Declared tools take their names first, so a history call to an undeclared tool never takes a declared one's.
  for (const declaration of declarations) names.chatName(stringField(declaration, "name")!);
  const request: HubRequest = { model: ctx.upstreamModel, messages: [...systemMessages(body), ...contentsToMessages(objectsField(body, "contents"), names, ctx.seal)] };
  if (body.stream === true) request.stream = true;
  const { tools, choice } = hubToolChoice(body, hubTools(declarations, names), names);
  if (tools.length > 0) {
    request.tools = tools;
    if (choice) request.tool_choice = choice;
  }
  Object.assign(request, samplingFields(config));
  const format = responseFormat(config);
  if (format) request.response_format = format;
  const effort = reasoningEffort(config);
  if (effort) request.reasoning_effort = effort;
  // Only the names that changed need mapping back; a reply naming a valid tool names it as the client declared it.
  const toolNames = new Map([...names.hints()].filter(([chatName, tool]) => chatName !== tool.name));
  return {
    request,
    hints: { includeThoughts: includeThoughts(config), jsonText: format !== undefined, ...(toolNames.size > 0 ? { toolNames } : {}) },
  };
}
