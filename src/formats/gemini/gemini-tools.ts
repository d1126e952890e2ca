import { isRecord } from "../../parse-json.js";
import type { HubTool, HubToolChoice, Json } from "../../translate/hub.js";
import { field, objectField, objectsField, stringField } from "./gemini-fields.js";
import { cleanJsonSchema, openApiToJsonSchema } from "./gemini-schema.js";
import type { ToolNames } from "../../translate/tool-names.js";

/**
 * Gemini `tools` and `toolConfig` as chat `tools` and `tool_choice`. Only function declarations are carried:
 * `googleSearch`, `googleSearchRetrieval`, `codeExecution`, `urlContext` and the like run on Google's servers and
 * mean nothing to a chat server (SPEC 10 rule 1), so they are left out.
 */

/** Every function declaration of every tool object, in order; a declaration without a name cannot be called. */
export function functionDeclarations(body: Json): Json[] {
  return objectsField(body, "tools")
    .flatMap((tool) => objectsField(tool, "functionDeclarations"))
    .filter((declaration) => stringField(declaration, "name"));
}

/** Chat wants an object schema at the top of every function's parameters (OpenAI refuses anything else). */
function objectSchema(schema: unknown): Json {
  if (!isRecord(schema)) return { type: "object", properties: {} };
  return schema.type === undefined ? { type: "object", properties: {}, ...schema } : schema;
}

/** A declaration's parameters: `parametersJsonSchema` (Gemini CLI) or `parameters` (the SDKs), whichever came (research table E row 21). */
function parametersOf(declaration: Json): Json {
  const jsonSchema = field(declaration, "parametersJsonSchema");
  return objectSchema(jsonSchema !== undefined ? cleanJsonSchema(jsonSchema) : openApiToJsonSchema(field(declaration, "parameters")));
}

/** The declarations as chat function tools, under names a chat server accepts. */
export function hubTools(declarations: readonly Json[], names: ToolNames): HubTool[] {
  return declarations.map((declaration) => {
    const description = stringField(declaration, "description");
    return {
      type: "function",
      function: { name: names.chatName(stringField(declaration, "name")!), ...(description ? { description } : {}), parameters: parametersOf(declaration) },
    };
  });
}

/** What `toolConfig.functionCallingConfig` asks for in chat terms: the choice, and the tools it may pick from. */
export function hubToolChoice(body: Json, tools: HubTool[], names: ToolNames): { tools: HubTool[]; choice: HubToolChoice | undefined } {
  const config = objectField(objectField(body, "toolConfig"), "functionCallingConfig");
  const mode = stringField(config, "mode")?.toUpperCase();
  const listed = field(config, "allowedFunctionNames");
  const allowed = Array.isArray(listed) ? listed.filter((name): name is string => typeof name === "string").map((name) => names.chatName(name)) : [];
  // ANY and VALIDATED limit the calls to the allowed names; chat has no such list, so the other tools are not offered.
  const limited = mode === "ANY" || mode === "VALIDATED" ? tools.filter((tool) => allowed.includes(tool.function.name)) : [];
  const offered = limited.length > 0 ? limited : tools;
  switch (mode) {
    case "AUTO":
    case "VALIDATED":
      return { tools: offered, choice: "auto" };
    case "ANY":
      return { tools: offered, choice: offered.length === 1 ? { type: "function", function: { name: offered[0]!.function.name } } : "required" };
    case "NONE":
      return { tools, choice: "none" };
    default:
      return { tools, choice: undefined };
  }
}
