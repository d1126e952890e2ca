import { isRecord } from "../../parse-json.js";
import type { HubRequest, HubToolChoice, Json } from "../../translate/hub.js";
import type { TranslateContext } from "../../translate/types.js";
import { conversationFromHub } from "./conversation-from-hub.js";
import { thinkingOfEffort } from "./reasoning-effort.js";
import { positive } from "./wire.js";

/** What Anthropic requires and chat leaves optional (SPEC 10 rule 1). */
const DEFAULT_MAX_TOKENS = 4096;

const stopSequencesOf = (stop: unknown): string[] =>
  (typeof stop === "string" ? [stop] : Array.isArray(stop) ? stop : []).filter((value): value is string => typeof value === "string" && value.trim() !== "");

function toolChoiceOf(choice: HubToolChoice | undefined, parallel: unknown): Json | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...single };
  if (isRecord(choice) && typeof choice.function?.name === "string") return { type: "tool", name: choice.function.name, ...single };
  return choice === "auto" || parallel === false ? { type: "auto", ...single } : undefined;
}

const toolsOf = (request: HubRequest): Json[] =>
  (Array.isArray(request.tools) ? request.tools : [])
    .filter((tool) => typeof tool?.function?.name === "string")
    .map(({ function: fn }) => ({
      name: fn.name,
      ...(typeof fn.description === "string" ? { description: fn.description } : {}),
      // Anthropic requires an object schema; chat servers are lenient about a missing `type`.
      input_schema: isRecord(fn.parameters) ? { type: "object", ...fn.parameters } : { type: "object", properties: {} },
    }));

/**
 * A chat request as a messages request (research C1). `max_tokens` or `max_completion_tokens`, 4096 when
 * neither, capped by the upstream's `maxOutputTokens`. Only one of temperature and top_p (Claude 4.1 and later
 * reject both: research table E row 13), and neither when thinking is on (Anthropic accepts only its defaults
 * then). `response_format` with a JSON schema becomes `output_config.format`; `json_object` has no messages form.
 */
export function messagesFromHub(request: HubRequest, ctx: TranslateContext): Json {
  const wanted = positive(request.max_tokens) ?? positive(request.max_completion_tokens) ?? DEFAULT_MAX_TOKENS;
  const maxTokens = ctx.maxOutputTokens ? Math.min(wanted, ctx.maxOutputTokens) : wanted;
  const { system, turns } = conversationFromHub(Array.isArray(request.messages) ? request.messages : []);
  const body: Json = { model: ctx.upstreamModel, max_tokens: maxTokens };
  if (system.length) body.system = system.join("\n\n");
  body.messages = turns;
  const stop = stopSequencesOf(request.stop);
  if (stop.length) body.stop_sequences = stop;
  const thinking = thinkingOfEffort(request.reasoning_effort, maxTokens);
  if (!thinking && typeof request.temperature === "number") body.temperature = request.temperature;
  else if (!thinking && typeof request.top_p === "number") body.top_p = request.top_p;
  const tools = toolsOf(request);
  if (tools.length) {
    body.tools = tools;
    const choice = toolChoiceOf(request.tool_choice, request.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  if (thinking) body.thinking = thinking;
  const format = request.response_format;
  if (format?.type === "json_schema" && isRecord(format.json_schema?.schema)) body.output_config = { format: { type: "json_schema", schema: format.json_schema.schema } };
  if (request.stream === true) body.stream = true;
  return body;
}
