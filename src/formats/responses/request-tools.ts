import { isRecord } from "../../parse-json.js";
import type { HubTool, HubToolChoice, Json } from "../../translate/hub.js";
import type { ToolNames } from "../../translate/tool-names.js";

const text = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);

/** A grammar longer than this is named, not copied: past a few KB it costs more context than it helps the model. */
const MAX_GRAMMAR_CHARS = 4000;

/** The one parameter a freeform tool gets on the chat side; the reply unwraps it back into `custom_tool_call.input`. */
const INPUT_PARAMETERS: Json = {
  type: "object",
  properties: { input: { type: "string", description: "The whole input for this tool, as plain text (not JSON)." } },
  required: ["input"],
  additionalProperties: false,
};

/** A function's JSON Schema as chat servers take it: an object schema always, and no `$schema` (Groq rejects it). */
function parameters(schema: unknown): Json {
  if (!isRecord(schema)) return { type: "object", properties: {} };
  const { $schema: _dropped, ...rest } = schema;
  return rest.type === undefined ? { type: "object", ...rest } : rest;
}

/**
 * What a freeform tool takes, said in its description, since the chat function only shows a string `input`: Codex's
 * `apply_patch` and code-mode `exec` declare a Lark grammar, which is copied when it is short enough to help.
 */
function customDescription(tool: Json): string {
  const format = isRecord(tool.format) ? tool.format : {};
  const definition = format.type === "grammar" ? text(format.definition) : undefined;
  const syntax = text(format.syntax) ?? "grammar";
  const lines = [text(tool.description), "This tool takes freeform text, not JSON: put the whole text in the `input` string."];
  if (definition) {
    lines.push(
      definition.length <= MAX_GRAMMAR_CHARS
        ? `The text must match this ${syntax} grammar:\n${definition.trim()}`
        : `The text must follow the format the tool describes (a ${syntax} grammar).`,
    );
  }
  return lines.filter(Boolean).join("\n\n");
}

function hubTool(tool: Json, names: ToolNames, namespace: string | undefined): HubTool[] {
  const name = text(tool.name);
  if (tool.type === "namespace" && name && namespace === undefined && Array.isArray(tool.tools)) {
    return tool.tools.filter(isRecord).flatMap((member) => hubTool(member, names, name));
  }
  if (!name) return [];
  if (tool.type === "function") {
    const description = text(tool.description);
    const chatName = names.chatName(name, namespace);
    return [{ type: "function", function: { name: chatName, ...(description ? { description } : {}), parameters: parameters(tool.parameters) } }];
  }
  if (tool.type === "custom") {
    return [{ type: "function", function: { name: names.chatName(name, namespace, true), description: customDescription(tool), parameters: INPUT_PARAMETERS } }];
  }
  // Hosted tools (web_search*, local_shell, image_generation, computer_use*, file_search, mcp, code_interpreter,
  // tool_search, shell, apply_patch) run on OpenAI's side; a chat upstream can neither run nor declare them.
  return [];
}

/**
 * The chat tools of a Responses request: the top-level `tools`, then those of every `additional_tools` input item
 * (recent Codex declares all its tools there), namespaces expanded to their members. A tool declared twice keeps
 * its first declaration.
 */
export function hubTools(body: Json, names: ToolNames): HubTool[] {
  const declared = [
    ...(Array.isArray(body.tools) ? body.tools : []),
    ...(Array.isArray(body.input) ? body.input : []).flatMap((item: unknown) =>
      isRecord(item) && item.type === "additional_tools" && Array.isArray(item.tools) ? item.tools : [],
    ),
  ];
  const seen = new Set<string>();
  return declared
    .filter(isRecord)
    .flatMap((tool) => hubTool(tool, names, undefined))
    .filter((tool) => !seen.has(tool.function.name) && seen.add(tool.function.name));
}

/**
 * Responses `tool_choice` as chat says it. A named function or custom tool is named by its chat name, and only when
 * it was declared (naming an undeclared tool is a 400 upstream); `allowed_tools` keeps only its mode (chat has no
 * subset); a hosted tool's choice is left out.
 */
export function hubToolChoice(choice: unknown, names: ToolNames, tools: HubTool[]): HubToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (!isRecord(choice)) return undefined;
  if (choice.type === "allowed_tools") return choice.mode === "required" ? "required" : "auto";
  const name = text(choice.name);
  if ((choice.type !== "function" && choice.type !== "custom") || !name) return undefined;
  const chatName = names.known(name, text(choice.namespace));
  return chatName && tools.some((tool) => tool.function.name === chatName) ? { type: "function", function: { name: chatName } } : undefined;
}
