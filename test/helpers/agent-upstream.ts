import { latestResult, readConversation, type Conversation } from "./agent-conversation.js";
import { replyInFormat, type Move, type MoveUsage } from "./agent-replies.js";
import { startFakeUpstream, type ScriptedReply, type Received } from "./fake-upstream.js";

export type { Move } from "./agent-replies.js";

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

/** The schema a side call wants its answer in (chat's `response_format`, Gemini's JSON generation config), if any. */
function jsonSchemaOf(body: Record<string, unknown>): { schema: unknown } | undefined {
  const format = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === "json_schema" || format?.type === "json_object") return { schema: format.json_schema?.schema };
  const generation = body.generationConfig as { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown } | undefined;
  if (generation?.responseMimeType === "application/json") return { schema: generation.responseJsonSchema ?? generation.responseSchema };
  return undefined;
}

/** How one agent's shell tool is called. */
export interface ShellTool {
  /** The tool's name as the upstream sees it. */
  name: string;
  /** The arguments that run `command`. */
  args: (command: string) => Record<string, unknown>;
  /** Responses only: the namespace the tool was declared in, and whether it is a freeform (custom) tool. */
  namespace?: string;
  custom?: boolean;
}

/**
 * Qwen Code's run_shell_command with `description`. Its one-shot mode runs commands without a terminal and, when the
 * child process exits, reads the output it has so far (0.24.4's `childProcessFallback` settles on `exit`, which Node
 * may emit before the last stdout data): on a busy machine a command as quick as `expr 40 + 2` is reported as
 * "Output: (empty)". Staying alive half a second after printing lets Qwen Code read what the command printed.
 */
export const qwenShell = (description: string): ShellTool => ({
  name: "run_shell_command",
  args: (command) => ({ command: `${command}; sleep 0.5`, description }),
});

/** The request a play decides on: its conversation read whatever its format. */
export type AgentRequest = Conversation & { format: "chat" | "messages" | "responses" | "gemini"; request: Received };

/** What the fake model does for a request: a move and the usage to report (the request's size in, 7 out unless it says). */
export type Play = (request: AgentRequest) => { move: Move; usage?: MoveUsage };

/** A call of `tool` running `command`, numbered `n`. */
export const callMove = (tool: ShellTool, command: string, n: number): Move => ({
  kind: "call",
  id: `call_${n}`,
  name: tool.name,
  args: tool.args(command),
  ...(tool.namespace ? { namespace: tool.namespace } : {}),
  ...(tool.custom ? { custom: true } : {}),
});

/**
 * An upstream that plays a model in any of the four formats (whichever path it is asked on), its moves decided by
 * `play`. Model lists and side calls that want JSON (titles, Gemini CLI's router) are answered without it.
 */
export async function startPlayingUpstream(play: Play, options: { refuse?: (request: Received) => ScriptedReply | undefined; reasoning?: (request: Received) => string | undefined } = {}) {
  const moves: Move["kind"][] = [];
  const reply = (request: Received): ScriptedReply => {
    // An upstream that checks what it is sent (a credential) answers a request it refuses before playing.
    const refused = options.refuse?.(request);
    if (refused) return refused;
    if (request.method === "GET") {
      if (request.path.includes("/v1beta/")) return { json: { models: [{ name: "models/agent-model", displayName: "agent-model", supportedGenerationMethods: ["generateContent"] }] } };
      return { json: { object: "list", data: [{ id: "agent-model", object: "model", created: 0, owned_by: "agent" }] } };
    }
    const body = request.body ?? {};
    const conversation = readConversation(request.path, body);
    const stream = body.stream === true || request.path.includes(":streamGenerateContent");
    const wanted = jsonSchemaOf(body);
    const { move, usage } = wanted ? { move: { kind: "text", text: JSON.stringify(sample(wanted.schema)) } as Move, usage: undefined } : play({ ...conversation, request });
    moves.push(move.kind);
    // A prompt's size as a model would count it (about four bytes a token), unless the play says otherwise: tools
    // compare it with what they compacted to.
    return replyInFormat(conversation.format, move, stream, usage ?? { input: Math.ceil(request.raw.length / 4), output: 7 }, options.reasoning?.(request));
  };
  const upstream = await startFakeUpstream({ script: reply });
  return Object.assign(upstream, { moves });
}

/**
 * A model doing one agentic turn: asked with the shell tool, it calls it with `command`; once the tool's result comes
 * back, it answers with `final` and the result's text. Requests without that tool get a short answer. `refuse` answers
 * first, as an upstream that checks what it is sent (a strict fake's rules); `reasoning` is the chat reply's
 * `reasoning_content` for a request (a thinking model's).
 */
export function startAgentUpstream(options: { tool: ShellTool; command: string; final: string; refuse?: (request: Received) => ScriptedReply | undefined; reasoning?: (request: Received) => string | undefined }) {
  let calls = 0;
  return startPlayingUpstream(({ tools, items }) => {
    if (!tools.includes(options.tool.name)) return { move: { kind: "text", text: "ok" } };
    const last = latestResult(items);
    if (last) return { move: { kind: "text", text: `${options.final} [tool said: ${last.text.slice(0, 300)}]` } };
    return { move: callMove(options.tool, options.command, ++calls) };
  }, { refuse: options.refuse, reasoning: options.reasoning });
}
