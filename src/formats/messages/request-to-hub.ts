import { isRecord } from "../../parse-json.js";
import { estimateHubTokens } from "../../translate/count-tokens.js";
import type { HubRequest, HubResponseFormat, Json } from "../../translate/hub.js";
import type { ToolNameMap } from "../../translate/tool-names.js";
import type { ReplyHints, ToHub, TranslateContext } from "../../translate/types.js";
import { conversationToHub } from "./content-to-hub.js";
import { effortOfRequest } from "./reasoning-effort.js";
import { systemToHub, turnsOf } from "./system-prompt.js";
import { loadedTools } from "./tool-search.js";
import { schemaOf, toolsToHub } from "./tools-to-hub.js";
import { positive } from "./wire.js";

/** What a messages client's reply side is told: the input-token estimate, and the tool names that changed for chat. */
export interface MessagesHints extends ReplyHints {
  toolNames?: ToolNameMap;
}

/** `output_config.format` (or the older beta `output_format`) with a JSON schema, as chat's `response_format`. */
function responseFormatOf(outputConfig: unknown, outputFormat: unknown): HubResponseFormat | undefined {
  const format = isRecord(outputConfig) && isRecord(outputConfig.format) ? outputConfig.format : isRecord(outputFormat) ? outputFormat : undefined;
  if (format?.type !== "json_schema" || !isRecord(format.schema)) return undefined;
  return { type: "json_schema", json_schema: { name: "structured_output", schema: schemaOf(format.schema) } };
}

const stopOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((stop): stop is string => typeof stop === "string" && stop !== "") : []);

/**
 * A messages request as a chat request, built field by field from what chat can say (an unknown field is a 400
 * on a strict server): `top_k`, `metadata`, `cache_control`, `service_tier`, `context_management`, `container`,
 * `mcp_servers`, `safeguards`, `diagnostics` and `output_config` itself never go out (SPEC 12). `speed: "fast"`
 * becomes `service_tier: "priority"`, which only kinds that take it keep. `reasoning_effort` is set whenever thinking is on; the
 * caller removes it for upstreams that do not take it. `hints.inputTokens` is a quick estimate for
 * `message_start`, before the upstream reports usage.
 */
export function messagesToHub(body: Json, ctx: TranslateContext): ToHub<MessagesHints> {
  const { fields, toolNames } = toolsToHub(body.tools, body.tool_choice, loadedTools(body.messages));
  const request: HubRequest = {
    model: ctx.upstreamModel,
    messages: [...systemToHub(body.system, ctx.keepsBillingHeader), ...conversationToHub(turnsOf(body.messages), ctx.seal)],
  };
  if (body.stream === true) request.stream = true;
  const maxTokens = positive(body.max_tokens);
  if (maxTokens) request.max_tokens = maxTokens;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.top_p = body.top_p;
  const stop = stopOf(body.stop_sequences);
  if (stop.length) request.stop = stop;
  Object.assign(request, fields);
  const format = responseFormatOf(body.output_config, body.output_format);
  if (format) request.response_format = format;
  if (body.speed === "fast") request.service_tier = "priority";
  const effort = effortOfRequest(body.thinking, body.output_config);
  if (effort) request.reasoning_effort = effort;
  const hints: MessagesHints = { inputTokens: estimateHubTokens(request) };
  if (toolNames.size) hints.toolNames = toolNames;
  return { request, hints };
}
