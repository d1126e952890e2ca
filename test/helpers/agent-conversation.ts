/**
 * A coding agent's request, whatever its format (chat, messages, Responses, Gemini), read into one view: the tools it
 * declares and its conversation in order (text, tool calls, tool results), so a fake upstream can decide its next
 * move and check what the tool kept. Shapes from the four APIs as the real tools send them.
 */

export type Item =
  | { kind: "text"; role: "system" | "user" | "assistant"; text: string }
  | { kind: "call"; id: string; name: string }
  | { kind: "result"; id: string; text: string };

export interface Conversation {
  /** The names of the tools the request declares, namespaced ones by their own name. */
  tools: string[];
  items: Item[];
}

type Obj = Record<string, unknown>;
const list = (value: unknown): Obj[] => (Array.isArray(value) ? (value as Obj[]) : []);
const textOf = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value ?? ""));

/** Text parts of a content field (a string, or parts with `text`). */
function texts(content: unknown): string {
  if (typeof content === "string") return content;
  return list(content)
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** Tool names of a tools array, namespaces opened (Codex's code mode puts its tools in a `functions` namespace). */
function toolNames(tools: Obj[]): string[] {
  return tools.flatMap((tool) => {
    if (Array.isArray(tool.functionDeclarations)) return list(tool.functionDeclarations).map((f) => String(f.name));
    if (Array.isArray(tool.tools)) return toolNames(list(tool.tools));
    const fn = tool.function as Obj | undefined;
    return [String(fn?.name ?? tool.name ?? tool.type)];
  });
}

function chat(body: Obj): Conversation {
  const items: Item[] = [];
  for (const m of list(body.messages)) {
    const role = m.role === "tool" ? "tool" : m.role === "assistant" ? "assistant" : m.role === "user" ? "user" : "system";
    if (role === "tool") {
      items.push({ kind: "result", id: String(m.tool_call_id), text: texts(m.content) });
      continue;
    }
    const text = texts(m.content);
    if (text) items.push({ kind: "text", role, text });
    for (const call of list(m.tool_calls)) items.push({ kind: "call", id: String(call.id), name: String((call.function as Obj).name) });
  }
  return { tools: toolNames(list(body.tools)), items };
}

function messages(body: Obj): Conversation {
  const system = texts(body.system);
  const items: Item[] = system ? [{ kind: "text", role: "system", text: system }] : [];
  for (const m of list(body.messages)) {
    const role = m.role === "assistant" ? "assistant" : m.role === "system" ? "system" : "user";
    if (typeof m.content === "string") {
      items.push({ kind: "text", role, text: m.content });
      continue;
    }
    for (const block of list(m.content)) {
      if (block.type === "text") items.push({ kind: "text", role, text: String(block.text) });
      if (block.type === "tool_use") items.push({ kind: "call", id: String(block.id), name: String(block.name) });
      if (block.type === "tool_result") items.push({ kind: "result", id: String(block.tool_use_id), text: texts(block.content) || textOf(block.content) });
    }
  }
  return { tools: toolNames(list(body.tools)), items };
}

function responses(body: Obj): Conversation {
  const items: Item[] = typeof body.instructions === "string" ? [{ kind: "text", role: "system", text: body.instructions }] : [];
  const tools = toolNames(list(body.tools));
  const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : list(body.input);
  for (const item of input) {
    if (item.type === "additional_tools") tools.push(...toolNames(list(item.tools)));
    if (item.type === "message" || (item.type === undefined && item.role)) {
      const role = item.role === "assistant" ? "assistant" : item.role === "user" ? "user" : "system";
      items.push({ kind: "text", role, text: texts(item.content) });
    }
    if (item.type === "function_call" || item.type === "custom_tool_call") items.push({ kind: "call", id: String(item.call_id), name: String(item.name) });
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output") items.push({ kind: "result", id: String(item.call_id), text: texts(item.output) });
    if (item.type === "compaction" || item.type === "context_compaction") items.push({ kind: "text", role: "system", text: String(item.encrypted_content ?? "") });
  }
  return { tools, items };
}

/** Gemini's calls and results carry no id in every version: each is numbered by its name's count so far. */
function gemini(body: Obj): Conversation {
  const system = texts((body.systemInstruction as Obj | undefined)?.parts);
  const items: Item[] = system ? [{ kind: "text", role: "system", text: system }] : [];
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  const next = (counts: Map<string, number>, name: string) => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return `${name}#${counts.get(name)}`;
  };
  for (const content of list(body.contents)) {
    const role = content.role === "model" ? "assistant" : "user";
    for (const part of list(content.parts)) {
      if (typeof part.text === "string" && !part.thought) items.push({ kind: "text", role, text: part.text });
      const call = part.functionCall as Obj | undefined;
      if (call) items.push({ kind: "call", id: next(calls, String(call.name)), name: String(call.name) });
      const result = part.functionResponse as Obj | undefined;
      if (result) items.push({ kind: "result", id: next(results, String(result.name)), text: textOf(result.response) });
    }
  }
  return { tools: toolNames(list(body.tools)), items };
}

/** The format of a request by its path, and its conversation. */
export function readConversation(path: string, body: Obj): Conversation & { format: "chat" | "messages" | "responses" | "gemini" } {
  if (path.endsWith("/v1/messages")) return { format: "messages", ...messages(body) };
  if (path.endsWith("/v1/responses")) return { format: "responses", ...responses(body) };
  if (path.includes(":generateContent") || path.includes(":streamGenerateContent")) return { format: "gemini", ...gemini(body) };
  return { format: "chat", ...chat(body) };
}

/** Calls without a result after them, and results without a call before them: what a tool must never send. */
export function unpaired(items: readonly Item[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const item of items) {
    if (item.kind === "call") open.add(item.id);
    if (item.kind === "result" && !open.delete(item.id)) problems.push(`a result for ${item.id} with no call before it`);
  }
  for (const id of open) problems.push(`a call ${id} with no result after it`);
  return problems;
}

/** The tool result the model has to answer now: the last one, when only user or system text follows it (reminders). */
export function latestResult(items: readonly Item[]): (Item & { kind: "result" }) | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === "result") return item;
    if (item.kind === "call" || item.role === "assistant") return undefined;
  }
  return undefined;
}
