import { promptTokens, type Json, type Refusal, type Rule, type ServerLimits } from "./core.js";

/**
 * Rule builders for Chat Completions bodies, shared by the chat kinds: each kind gives the source and its own words,
 * the builder knows where in the body to look. A kind's module reads as its table of rules.
 */

export interface ChatMessage {
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string } }[];
  tool_call_id?: string;
  reasoning_content?: unknown;
}

export interface ChatTool {
  type?: string;
  function?: { name?: string; parameters?: unknown; strict?: boolean };
}

export const messagesOf = (body: Json): ChatMessage[] => (Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : []);
export const toolsOf = (body: Json): ChatTool[] => (Array.isArray(body.tools) ? (body.tools as ChatTool[]) : []);

type Check = (body: Json, limits: ServerLimits) => Refusal | undefined;
const rule = (text: string, source: string, check: Check): Rule => ({ rule: text, source, check });

/** The function-name rule most chat APIs share (OpenAI's documented `^[a-zA-Z0-9_-]{1,64}$`). */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Every declared function's name, and every name in an assistant's earlier calls, must match `FUNCTION_NAME`. */
export function functionNames(source: string, refuse: (where: string, name: string) => Refusal): Rule {
  return rule("function names outside ^[a-zA-Z0-9_-]{1,64}$, declared or in an earlier call", source, (body) => {
    for (const [i, tool] of toolsOf(body).entries()) {
      const name = tool.function?.name ?? "";
      if (!FUNCTION_NAME.test(name)) return refuse(`tools[${i}].function.name`, name);
    }
    for (const [m, message] of messagesOf(body).entries()) {
      for (const [k, call] of (message.tool_calls ?? []).entries()) {
        const name = call.function?.name ?? "";
        if (!FUNCTION_NAME.test(name)) return refuse(`messages[${m}].tool_calls[${k}].function.name`, name);
      }
    }
    return undefined;
  });
}

/** At most `max` tools. */
export function toolCount(max: number, source: string, refuse: (count: number) => Refusal): Rule {
  return rule(`more than ${max} tools`, source, (body) => (toolsOf(body).length > max ? refuse(toolsOf(body).length) : undefined));
}

/** A `tool` message must follow an assistant message with `tool_calls` (or another tool message after one). */
export function toolAfterCall(source: string, refuse: (index: number) => Refusal): Rule {
  return rule("a tool message that answers no preceding tool call", source, (body) => {
    let open = false;
    for (const [i, message] of messagesOf(body).entries()) {
      if (message.role === "tool") {
        if (!open) return refuse(i);
      } else open = message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0;
    }
    return undefined;
  });
}

/** Every call of an assistant message must be answered by the tool messages right after it. */
export function callsAnswered(source: string, refuse: (index: number, unanswered: string[]) => Refusal): Rule {
  return rule("a tool call left without its tool message", source, (body) => {
    const messages = messagesOf(body);
    for (const [i, message] of messages.entries()) {
      if (message.role !== "assistant" || !message.tool_calls?.length) continue;
      let next = i + 1;
      const answered = new Set<string>();
      while (messages[next]?.role === "tool") answered.add(messages[next++]!.tool_call_id ?? "");
      const unanswered = message.tool_calls.map((call) => call.id ?? "").filter((id) => !answered.has(id));
      if (unanswered.length) return refuse(next < messages.length ? next : i, unanswered);
    }
    return undefined;
  });
}

/** An assistant message with neither content nor tool calls (`content: null` or absent). */
export function emptyAssistant(source: string, isEmpty: (content: unknown) => boolean, refuse: (index: number) => Refusal): Rule {
  return rule("an assistant message with no content and no tool calls", source, (body) => {
    const index = messagesOf(body).findIndex((message) => message.role === "assistant" && !message.tool_calls?.length && isEmpty(message.content));
    return index < 0 ? undefined : refuse(index);
  });
}

/** A system message anywhere but first: the chat template raises. */
export function systemFirst(source: string, refusal: Refusal): Rule {
  return rule("a system message after the first message (the chat template raises)", source, (body) =>
    messagesOf(body).some((message, i) => i > 0 && message.role === "system") ? refusal : undefined,
  );
}

/** Body fields the server does not know. */
export function knownFields(known: ReadonlySet<string>, source: string, refuse: (field: string) => Refusal): Rule {
  return rule("a body field the server does not know", source, (body) => {
    const unknown = Object.keys(body).find((field) => !known.has(field));
    return unknown === undefined ? undefined : refuse(unknown);
  });
}

/** The prompt (as `promptTokens` counts it) plus the requested output must fit the window. */
export function contextLength(source: string, refuse: (prompt: number, completion: number, window: number) => Refusal | undefined): Rule {
  return rule("a prompt (and requested output) larger than the context window, in the server's words", source, (body, limits) => {
    const completion = Number(body.max_completion_tokens ?? body.max_tokens ?? 0);
    const prompt = promptTokens(body);
    return prompt + completion > limits.contextWindow ? refuse(prompt, completion, limits.contextWindow) : undefined;
  });
}

/** A schema and where it sits, as a path of keys from the function's `parameters`. */
export interface SchemaAt {
  schema: Json;
  path: (string | number)[];
}

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_SINGLES = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties"];

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every (sub-)schema of `root`, in schema positions only (a property named `pattern` is not a keyword). */
export function schemasIn(root: unknown, path: (string | number)[] = []): SchemaAt[] {
  if (!isJson(root)) return [];
  const found: SchemaAt[] = [{ schema: root, path }];
  for (const key of SCHEMA_MAPS) {
    if (isJson(root[key])) for (const [name, sub] of Object.entries(root[key] as Json)) found.push(...schemasIn(sub, [...path, key, name]));
  }
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(root[key])) (root[key] as unknown[]).forEach((sub, i) => found.push(...schemasIn(sub, [...path, key, i])));
  }
  for (const key of SCHEMA_SINGLES) {
    if (Array.isArray(root[key])) (root[key] as unknown[]).forEach((sub, i) => found.push(...schemasIn(sub, [...path, key, i])));
    else found.push(...schemasIn(root[key], [...path, key]));
  }
  return found;
}

/** Each regex of a schema: its `pattern`s and the keys of its `patternProperties`, with where they sit. */
export function patternsIn(parameters: unknown): { pattern: string; path: (string | number)[] }[] {
  return schemasIn(parameters).flatMap(({ schema, path }) => [
    ...(typeof schema.pattern === "string" ? [{ pattern: schema.pattern, path: [...path, "pattern"] }] : []),
    ...(isJson(schema.patternProperties) ? Object.keys(schema.patternProperties).map((key) => ({ pattern: key, path: [...path, "patternProperties"] })) : []),
  ]);
}

/** A declared function as the schema rules see it, whatever the format. */
export interface DeclaredFunction {
  name: string;
  parameters: unknown;
  strict: boolean;
}

/** Chat's `tools[].function`. */
export const chatFunctions = (body: Json): DeclaredFunction[] =>
  toolsOf(body).map((tool) => ({ name: tool.function?.name ?? "", parameters: tool.function?.parameters, strict: tool.function?.strict === true }));

/** A messages request's `tools[]` (`name`, `input_schema`). */
export const messagesFunctions = (body: Json): DeclaredFunction[] =>
  (Array.isArray(body.tools) ? (body.tools as { name?: string; input_schema?: unknown }[]) : []).map((tool) => ({ name: tool.name ?? "", parameters: tool.input_schema, strict: false }));

/** A `pattern` in a function's parameters that the server's regex engine cannot compile. */
export function schemaPatterns(
  source: string,
  compiles: (pattern: string) => boolean,
  refuse: (toolIndex: number, name: string, pattern: string, path: (string | number)[]) => Refusal,
  functionsOf: (body: Json) => DeclaredFunction[] = chatFunctions,
): Rule {
  return rule("a schema pattern its regex engine cannot compile", source, (body) => {
    for (const [i, declared] of functionsOf(body).entries()) {
      const bad = patternsIn(declared.parameters).find(({ pattern }) => !compiles(pattern));
      if (bad) return refuse(i, declared.name, bad.pattern, bad.path);
    }
    return undefined;
  });
}
