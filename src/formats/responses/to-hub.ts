import { isRecord } from "../../parse-json.js";
import { badRequest } from "../../errors/index.js";
import type { HubRequest, HubResponseFormat, HubTool, Json } from "../../translate/hub.js";
import type { ReplyHints, ToHub, TranslateContext } from "../../translate/types.js";
import { hubMessages } from "./request-input.js";
import { hubToolChoice, hubTools } from "./request-tools.js";
import { effortOfWord } from "../../translate/reasoning-effort.js";
import { createToolNames, type ToolNameMap } from "../../translate/tool-names.js";
import { compactionAsked, SUMMARY_PROMPT, userMessages, type CompactionAsk } from "./compaction.js";

const finite = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The request fields a Responses reply repeats (the API echoes the request's settings in every response object). */
export interface ResponseEcho {
  parallel_tool_calls: boolean;
  tool_choice: unknown;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  reasoning: { effort: string | null; summary: string | null } | null;
}

/** What the Responses reply side needs: the tool names, the settings to echo, and whether the request asked for a compaction. */
export interface ResponsesHints extends ReplyHints {
  toolNames?: ToolNameMap;
  echo?: ResponseEcho;
  compaction?: CompactionAsk;
  /** The compaction endpoint's user messages, which its answer repeats before the compaction item. */
  userMessages?: Json[];
}

/** `text.format` as chat's `response_format`; plain text needs none. */
function responseFormat(text: unknown): HubResponseFormat | undefined {
  const format = isRecord(text) && isRecord(text.format) ? text.format : undefined;
  if (format?.type === "json_object") return { type: "json_object" };
  if (format?.type !== "json_schema" || !isRecord(format.schema)) return undefined;
  const name = typeof format.name === "string" && format.name ? format.name : "response";
  return {
    type: "json_schema",
    json_schema: {
      name,
      schema: format.schema,
      ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
      ...(typeof format.description === "string" ? { description: format.description } : {}),
    },
  };
}

function echoOf(body: Json, reasoning: Json | undefined): ResponseEcho {
  const word = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    parallel_tool_calls: typeof body.parallel_tool_calls === "boolean" ? body.parallel_tool_calls : true,
    tool_choice: body.tool_choice ?? "auto",
    temperature: finite(body.temperature) ?? null,
    top_p: finite(body.top_p) ?? null,
    max_output_tokens: finite(body.max_output_tokens) ?? null,
    reasoning: reasoning ? { effort: word(reasoning.effort), summary: word(reasoning.summary) } : null,
  };
}

/**
 * A Responses request as a chat request, built from a whitelist: what chat cannot say (`store`, `include`,
 * `truncation`, `metadata`, `service_tier`, `background`, `user`, `text.verbosity`, `reasoning.summary`, hosted
 * tools) is left out. Codex's `prompt_cache_key` goes on, for the chat kinds that take it (SPEC 11: the kind's
 * hub quirks drop it for every other). `previous_response_id` is refused: a translated route keeps no
 * responses to continue from.
 */
export function responsesToHub(body: Json, ctx: TranslateContext): ToHub<ResponsesHints> {
  if (typeof body.previous_response_id === "string" && body.previous_response_id) {
    throw badRequest(
      "previous_response_id cannot be used with this model: its upstream speaks Chat Completions and the gateway keeps no responses to continue from. Send the whole conversation in input instead (Codex does this with store = false).",
      { param: "previous_response_id", code: "unsupported_parameter" },
    );
  }
  const names = createToolNames();
  const tools = hubTools(body, names);
  const request: HubRequest = { model: ctx.upstreamModel, messages: hubMessages(body, tools, names, ctx) };
  // A compaction's summary request shares the conversation's prefix: the same key lets the server's cache serve it.
  if (typeof body.prompt_cache_key === "string" && body.prompt_cache_key) request.prompt_cache_key = body.prompt_cache_key;
  const reasoning = isRecord(body.reasoning) ? body.reasoning : undefined;
  const compaction = compactionAsked(body, ctx.path);
  if (compaction) {
    const hints: ResponsesHints = { toolNames: names.hints(), echo: echoOf(body, reasoning), compaction };
    if (compaction === "endpoint") hints.userMessages = userMessages(body.input);
    return summaryRequest(request, tools, reasoning, hints);
  }
  if (body.stream === true) request.stream = true;
  const maxTokens = finite(body.max_output_tokens);
  if (maxTokens !== undefined && maxTokens > 0) request.max_tokens = Math.floor(maxTokens);
  const temperature = finite(body.temperature);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = finite(body.top_p);
  if (topP !== undefined) request.top_p = topP;
  // Chat servers refuse tool_choice and parallel_tool_calls on a request without tools.
  if (tools.length > 0) {
    request.tools = tools;
    const choice = hubToolChoice(body.tool_choice, names, tools);
    if (choice !== undefined) request.tool_choice = choice;
    if (typeof body.parallel_tool_calls === "boolean") request.parallel_tool_calls = body.parallel_tool_calls;
  }
  // Codex's `minimal` is the lowest chat has, `xhigh` the highest; `none` asks for none.
  const effort = effortOfWord(reasoning?.effort);
  if (effort) request.reasoning_effort = effort;
  const format = responseFormat(body.text);
  if (format) request.response_format = format;
  const hints: ResponsesHints = { toolNames: names.hints(), echo: echoOf(body, reasoning) };
  return { request, hints };
}

/**
 * A compaction as a chat request (SPEC 11): the conversation as any request has it, then the summary prompt as the
 * last user message. The tools stay declared, since some servers refuse a history of calls to tools they were not
 * given (Anthropic's), but the model may call none of them; nothing else of the request's settings applies to a
 * summary but its reasoning effort. It streams when a trigger request does (the stream then carries the one item).
 */
function summaryRequest(request: HubRequest, tools: HubTool[], reasoning: Json | undefined, hints: ResponsesHints): ToHub {
  const prompt = { type: "text" as const, text: SUMMARY_PROMPT };
  const last = request.messages.at(-1);
  // Joined to a last user message rather than after it: some chat templates refuse two user turns in a row.
  if (last?.role === "user") last.content = typeof last.content === "string" ? [{ type: "text", text: last.content }, prompt] : [...last.content, prompt];
  else request.messages.push({ role: "user", content: [prompt] });
  if (tools.length > 0) {
    request.tools = tools;
    request.tool_choice = "none";
  }
  const effort = effortOfWord(reasoning?.effort);
  if (effort) request.reasoning_effort = effort;
  return { request, hints };
}
