import type { Json } from "../../src/translate/hub.js";

/** What Codex sends, for the Responses translator tests: shapes from codex-rs (ResponseItem, the code-mode `exec` tool) as Codex 0.169 and 0.45 send them. */

/** Codex's code-mode `exec` grammar (codex-rs `create_code_mode_tool`). */
export const EXEC_GRAMMAR = "\nstart: pragma_source | plain_source\npragma_source: PRAGMA_LINE NEWLINE SOURCE\nplain_source: SOURCE\n\nPRAGMA_LINE: /[ \\t]*\\/\\/ @exec:[^\\r\\n]*/\nNEWLINE: /\\r?\\n/\nSOURCE: /[\\s\\S]+/\n";

/** Codex's `apply_patch` grammar (codex-rs `tool_apply_patch.lark`), declared by Codex 0.45 as a freeform tool. */
export const PATCH_GRAMMAR = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;

/** The one string parameter a freeform tool becomes on the chat side. */
export const INPUT_PARAMETERS = {
  type: "object",
  properties: { input: { type: "string", description: "The whole input for this tool, as plain text (not JSON)." } },
  required: ["input"],
  additionalProperties: false,
};

/** Code mode's `exec` tool: its description, the `wait` tool's parameters, and a program the model sends `exec`. */
export const EXEC_DESCRIPTION = "Run JavaScript that orchestrates tools: `await tools.exec_command({cmd})`, `await tools.apply_patch(patch)`.";
export const WAIT_PARAMETERS = { type: "object", properties: { cell_id: { type: "string" } }, required: ["cell_id"], additionalProperties: false };
export const EXEC_CODE = 'const r = await tools.exec_command({cmd: "ls"});\ntext(r.output);';

/** An `input_text` part. */
export const text = (value: string) => ({ type: "input_text", text: value });

/** Codex 0.169 with its default models ("code mode"): no top-level tools, an `additional_tools` item instead. */
export function codeModeRequest(history: Json[] = []): Json {
  return {
    model: "gpt-5.6-codex",
    instructions: "You are Codex, a coding agent.",
    input: [
      {
        type: "additional_tools",
        role: "developer",
        tools: [
          {
            type: "namespace",
            name: "functions",
            description: "Local tools",
            tools: [
              { type: "custom", name: "exec", description: EXEC_DESCRIPTION, format: { type: "grammar", syntax: "lark", definition: EXEC_GRAMMAR } },
              { type: "function", name: "wait", description: "Waits on a yielded exec cell.", strict: false, parameters: WAIT_PARAMETERS },
            ],
          },
        ],
      },
      { type: "message", role: "developer", content: [text("<permissions instructions>sandbox: workspace-write</permissions instructions>")] },
      { type: "message", role: "user", content: [text("# AGENTS.md instructions\nUse pnpm.")] },
      { type: "message", role: "user", content: [text("<environment_context><cwd>/repo</cwd></environment_context>")] },
      { type: "message", role: "user", content: [text("List the files.")] },
      ...history,
    ],
    tool_choice: "auto",
    parallel_tool_calls: true,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "019a2b3c-session",
    text: { verbosity: "low" },
    client_metadata: { ws_request_header_x_openai_internal_codex_responses_lite: "true" },
  };
}

/** Code mode's `exec` and `wait` tools as the chat upstream gets them. */
export const execTool = {
  type: "function",
  function: {
    name: "functions__exec",
    description: `${EXEC_DESCRIPTION}\n\nThis tool takes freeform text, not JSON: put the whole text in the \`input\` string.\n\nThe text must match this lark grammar:\n${EXEC_GRAMMAR.trim()}`,
    parameters: INPUT_PARAMETERS,
  },
};
export const waitTool = { type: "function", function: { name: "functions__wait", description: "Waits on a yielded exec cell.", parameters: WAIT_PARAMETERS } };

/** The parameters of `exec_command`, the shell function Codex declares with other models. */
export const EXEC_COMMAND_PARAMETERS = {
  type: "object",
  properties: { cmd: { type: "string", description: "Shell command to execute." }, workdir: { type: "string" } },
  required: ["cmd"],
  additionalProperties: false,
};

/** Codex 0.169 with another model: top-level function, a namespace, a hosted tool; `function_call_output.output` a string. */
export function topLevelRequest(history: Json[] = []): Json {
  return {
    model: "qwen3-coder",
    instructions: "You are Codex, a coding agent.",
    input: [{ type: "message", role: "user", content: [text("Run the tests.")] }, ...history],
    tools: [
      { type: "function", name: "exec_command", description: "Runs a command.", strict: false, parameters: EXEC_COMMAND_PARAMETERS },
      {
        type: "namespace",
        name: "multi_agent_v1",
        description: "Sub-agents",
        tools: [{ type: "function", name: "spawn_agent", description: "Starts an agent.", strict: false, parameters: { type: "object", properties: { task: { type: "string" } } } }],
      },
      { type: "web_search", external_web_access: false },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "high", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "019a2b3c-session",
    text: { verbosity: "medium" },
  };
}

/** Codex 0.45: `shell` as a function and `apply_patch` as a freeform tool with its grammar, all at the top level. */
export function codex045Request(history: Json[] = []): Json {
  return {
    model: "gpt-5-codex",
    instructions: "You are Codex.",
    input: [{ type: "message", role: "user", content: [text("Fix the typo in a.txt.")] }, ...history],
    tools: [
      {
        type: "function",
        name: "shell",
        description: "Runs a shell command and returns its output.",
        strict: false,
        parameters: { type: "object", properties: { command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } }, required: ["command"], additionalProperties: false },
      },
      { type: "custom", name: "apply_patch", description: "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.", format: { type: "grammar", syntax: "lark", definition: PATCH_GRAMMAR } },
      { type: "local_shell" },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "minimal", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "0199-session",
  };
}
