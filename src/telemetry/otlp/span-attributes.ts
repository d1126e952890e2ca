import type { RequestRecord } from "../../request-log/record.js";
import { errorTypeOf } from "../observations.js";

/** A span attribute's value, as the OpenTelemetry API takes it. */
export type SpanValue = string | number | boolean | string[];

/** What a span says beyond its record: the request's own facts, its price, its upstream's kind. */
export interface SpanFacts {
  /** The output-token cap the request asked for. */
  maxTokens: number | undefined;
  /** The record's price in US dollars (null: no known price; undefined: nothing to price). */
  costUsd: number | null | undefined;
  /** The upstream's kind (`gen_ai.provider.name`). */
  provider: string | undefined;
  /** The upstream's origin (`server.address`), never a path or a key. */
  serverAddress: string | undefined;
  /** The client tool, as the request log names it (`claude-code`, `codex`, `openai-sdk`, ...). */
  client: string | undefined;
}

/** `chat {gen_ai.request.model}` for a model call; `{method} {path}` for anything else (a model list, a passthrough). */
export const spanName = (record: Pick<RequestRecord, "model" | "format" | "method" | "path">): string =>
  record.format !== undefined && record.model !== undefined ? `chat ${record.model}` : `${record.method} ${record.path}`;

/**
 * A request's span attributes (SPEC 12, Traces and metrics over OTLP): the GenAI semantic conventions' names
 * (open-telemetry/semantic-conventions `docs/gen-ai/gen-ai-spans.md`) and the gateway's own. Only counts, names and
 * the request's routing: no prompt, reply, header or key ever enters a span. `gen_ai.response.model` is the model
 * the upstream was asked for (the alias's target): the gateway does not read the model a reply names.
 */
export function spanAttributes(record: RequestRecord, facts: SpanFacts): Record<string, SpanValue> {
  const out: Record<string, SpanValue> = { "gen_ai.operation.name": "chat" };
  const set = (name: string, value: SpanValue | null | undefined) => {
    if (value !== undefined && value !== null) out[name] = value;
  };
  set("gen_ai.provider.name", facts.provider);
  set("gen_ai.request.model", record.model);
  set("gen_ai.response.model", record.upstreamFormat === undefined ? undefined : (record.target ?? record.model));
  set("gen_ai.request.max_tokens", facts.maxTokens);
  set("gen_ai.request.stream", record.stream ?? false);
  set("gen_ai.usage.input_tokens", record.inputTokens);
  set("gen_ai.usage.output_tokens", record.outputTokens);
  set("gen_ai.usage.cache_read.input_tokens", record.cacheReadTokens);
  set("gen_ai.usage.cache_creation.input_tokens", record.cacheWriteTokens);
  set("server.address", facts.serverAddress);
  set("error.type", errorTypeOf(record));
  set("http.response.status_code", record.status);
  set("gateway.route", record.rule);
  set("gateway.upstream", record.upstream);
  set("gateway.format", record.format);
  set("gateway.upstream_format", record.upstreamFormat);
  set("gateway.cost_usd", facts.costUsd);
  set("gateway.client", facts.client);
  set("gateway.request_id", record.requestId);
  return out;
}
