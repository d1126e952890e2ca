import { scriptJson, scriptStream, type ChatScript } from "./chat-script.js";
import { messagesSse, startFakeUpstream, type ScriptedReply, type Received } from "./fake-upstream.js";

/** A JSON value that fits a JSON schema well enough for a tool's side call (a title, a router's classification). */
function sample(schema: unknown): unknown {
  const s = (schema ?? {}) as { type?: string; properties?: Record<string, unknown>; enum?: unknown[] };
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  switch (String(s.type ?? "object").toLowerCase()) {
    case "string":
      return "simple";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([key, value]) => [key, sample(value)]));
  }
}

/** How one agent's shell tool is called. */
export interface ShellTool {
  /** The tool's name as the upstream sees it. */
  name: string;
  /** The arguments that run `command`. */
  args: (command: string) => Record<string, unknown>;
}

/** What the model does next, whatever format it is asked in. */
type Move = { kind: "text"; text: string } | { kind: "call"; id: string; name: string; args: Record<string, unknown> };

type Message = { role: string; content?: unknown };

/** The text of the last tool result in a conversation (chat `tool` message, or messages `tool_result` block), if it is the latest turn. */
function lastToolResult(messages: Message[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role === "tool") return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  if (last?.role !== "user" || !Array.isArray(last.content)) return undefined;
  const result = (last.content as { type?: string; content?: unknown }[]).find((block) => block.type === "tool_result");
  if (!result) return undefined;
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

/** A messages reply for a move, whole or as Anthropic's event stream. */
function messagesReply(move: Move, stream: boolean): ScriptedReply {
  const block = move.kind === "text" ? { type: "text", text: move.text } : { type: "tool_use", id: move.id, name: move.name, input: move.args };
  const stop = move.kind === "text" ? "end_turn" : "tool_use";
  const usage = { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const message = { id: "msg_agent", type: "message", role: "assistant", model: "agent-model", content: [block], stop_reason: stop, stop_sequence: null, usage };
  if (!stream) return { json: message };
  const delta = move.kind === "text" ? { type: "text_delta", text: move.text } : { type: "input_json_delta", partial_json: JSON.stringify(move.args) };
  const start = move.kind === "text" ? { type: "text", text: "" } : { ...block, input: {} };
  return {
    chunks: [
      messagesSse([
        { type: "message_start", message: { ...message, content: [], stop_reason: null } } as never,
        { type: "content_block_start", index: 0, content_block: start } as never,
        { type: "content_block_delta", index: 0, delta } as never,
        { type: "content_block_stop", index: 0 } as never,
        { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 7 } } as never,
        { type: "message_stop" } as never,
      ]),
    ],
  };
}

/**
 * An upstream that plays a model doing one agentic turn, in chat or in Anthropic's messages format (whichever path
 * it is asked on): asked with the shell tool, it calls it with `command`; once the tool's result comes back, it
 * answers with `final` and the result's text. Side calls without that tool (titles, Gemini CLI's router in JSON
 * mode) get a short answer that fits their schema.
 */
export async function startAgentUpstream(options: { tool: ShellTool; command: string; final: string }) {
  const moves: Move["kind"][] = [];
  const decide = (body: Record<string, unknown>): Move => {
    const format = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
    if (format?.type === "json_schema" || format?.type === "json_object") return { kind: "text", text: JSON.stringify(sample(format.json_schema?.schema)) };
    const tools = (body.tools as { name?: string; function?: { name: string } }[] | undefined) ?? [];
    if (!tools.some((tool) => (tool.function?.name ?? tool.name) === options.tool.name)) return { kind: "text", text: "ok" };
    const result = lastToolResult((body.messages as Message[] | undefined) ?? []);
    if (result !== undefined) return { kind: "text", text: `${options.final} [tool said: ${result.slice(0, 300)}]` };
    return { kind: "call", id: `call_${moves.length + 1}`, name: options.tool.name, args: options.tool.args(options.command) };
  };
  const reply = (request: Received): ScriptedReply => {
    if (request.method === "GET") return { json: { object: "list", data: [{ id: "agent-model", object: "model", created: 0, owned_by: "agent" }] } };
    const body = request.body ?? {};
    const move = decide(body);
    moves.push(move.kind);
    const stream = body.stream === true;
    if (request.path.endsWith("/v1/messages")) return messagesReply(move, stream);
    const script: ChatScript = move.kind === "text" ? { text: move.text } : { toolCalls: [{ id: move.id, name: move.name, args: move.args }] };
    return stream ? scriptStream(script) : scriptJson(script);
  };
  const upstream = await startFakeUpstream({ script: reply });
  return Object.assign(upstream, { moves });
}
