import { isRecord } from "../../parse-json.js";
import type { HubRequest, HubTool, HubToolChoice, Json } from "../../translate/hub.js";
import type { ToolNameMap } from "../../translate/tool-names.js";
import { chatToolName } from "../../translate/tool-names.js";
import { sentNow } from "./tool-search.js";

type ToolFields = Pick<HubRequest, "tools" | "tool_choice" | "parallel_tool_calls">;

/** A tool Anthropic runs itself (`web_search_20250305`, `bash_*`, `text_editor_*`, `code_execution_*`): a chat upstream cannot. */
const isServerTool = (tool: Record<string, unknown>): boolean => typeof tool.type === "string" && tool.type !== "custom";

/**
 * A JSON Schema as chat servers take it: `{type: "object", properties: {}}` when there is none (strict servers
 * answer `missing field parameters`), `$schema` removed (Groq rejects it), everything else kept.
 */
export function schemaOf(schema: unknown): Json {
  if (!isRecord(schema)) return { type: "object", properties: {} };
  const copy: Json = { ...schema };
  delete copy.$schema;
  return copy;
}

function choiceOf(choice: unknown, declared: ReadonlySet<string>): HubToolChoice | undefined {
  if (!isRecord(choice)) return undefined;
  if (choice.type === "auto") return "auto";
  if (choice.type === "any") return "required";
  if (choice.type === "none") return "none";
  // A named server tool was dropped with its definition, and so is the choice of it.
  if (choice.type === "tool" && typeof choice.name === "string" && declared.has(choice.name)) return { type: "function", function: { name: chatToolName(choice.name) } };
  return undefined;
}

/**
 * `tools` and `tool_choice` as chat's: each custom tool a function (name made valid, description, schema), server
 * tools left out, and so is a deferred tool until a `tool_reference` has loaded it (`loaded`); `any` -> `required`, a named tool -> that function, `disable_parallel_tool_use` ->
 * `parallel_tool_calls: false`. With no tool left, neither a choice nor the parallel switch is sent (OpenAI
 * rejects both without tools). `toolNames` maps each renamed tool back to the client's name.
 */
export function toolsToHub(tools: unknown, toolChoice: unknown, loaded: ReadonlySet<string>): { fields: ToolFields; toolNames: ToolNameMap } {
  const declared = (Array.isArray(tools) ? tools.filter(isRecord) : []).filter((tool) => !isServerTool(tool) && typeof tool.name === "string" && sentNow(tool, loaded));
  const toolNames = new Map<string, { name: string }>();
  const functions: HubTool[] = declared.map((tool) => {
    const clientName = tool.name as string;
    const name = chatToolName(clientName);
    if (name !== clientName) toolNames.set(name, { name: clientName });
    const description = typeof tool.description === "string" ? { description: tool.description } : {};
    return { type: "function", function: { name, ...description, parameters: schemaOf(tool.input_schema) } };
  });
  if (!functions.length) return { fields: {}, toolNames };
  const fields: ToolFields = { tools: functions };
  const choice = choiceOf(toolChoice, new Set(declared.map((tool) => tool.name as string)));
  if (choice) fields.tool_choice = choice;
  if (isRecord(toolChoice) && toolChoice.disable_parallel_tool_use === true && choice !== "none") fields.parallel_tool_calls = false;
  return { fields, toolNames };
}
