/**
 * Every metric the gateway exports, by its OpenTelemetry name and as Prometheus renders it (SPEC 12, Metrics): the
 * GenAI ones are the semantic conventions' (open-telemetry/semantic-conventions `docs/gen-ai/gen-ai-metrics.md`,
 * with their advisory bucket boundaries), so a dashboard built for a team's agentgateway or LiteLLM reads these too.
 * Attribute names are the OpenTelemetry ones; Prometheus labels are the same with `_` for `.` (`promLabel`).
 */
export const METRICS = {
  tokenUsage: {
    otel: "gen_ai.client.token.usage",
    prom: "gen_ai_client_token_usage",
    unit: "{token}",
    help: "Tokens used per model call, by token type (input, output).",
    buckets: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  },
  duration: {
    otel: "gen_ai.client.operation.duration",
    prom: "gen_ai_client_operation_duration_seconds",
    unit: "s",
    help: "Duration of each model call, from the request's arrival to its reply's last byte.",
    buckets: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
  },
  timeToFirstToken: {
    otel: "gen_ai.server.time_to_first_token",
    prom: "gen_ai_server_time_to_first_token_seconds",
    unit: "s",
    help: "Time from a streamed model call's arrival to the first byte of its reply sent to the client.",
    buckets: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
  },
  requests: { otel: "gateway.requests", prom: "gateway_requests_total", unit: "{request}", help: "Requests the gateway recorded." },
  cost: { otel: "gateway.cost", prom: "gateway_cost_usd_total", unit: "usd", help: "Estimated cost of the requests, in US dollars (as gateway stats prices them)." },
  budgetSpent: { otel: "gateway.budget.spent", prom: "gateway_budget_spent_usd", unit: "usd", help: "What a configured budget has counted in its current period, in US dollars." },
  budgetLimit: { otel: "gateway.budget.limit", prom: "gateway_budget_limit_usd", unit: "usd", help: "A configured budget's cap, in US dollars." },
  keyResting: { otel: "gateway.key.resting", prom: "gateway_key_resting", unit: "1", help: "1 while a key of an upstream with several keys rests after a 429 or a refusal." },
  inflight: { otel: "gateway.inflight.requests", prom: "gateway_inflight_requests", unit: "{request}", help: "Requests open right now, from accept to last byte." },
} as const;

/** Label names of each metric, as OpenTelemetry attribute names. */
export const ATTRIBUTES = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
} as const;

const PROM_LABELS = new Map<string, string>();

/**
 * An OpenTelemetry attribute name as a Prometheus label (`gen_ai.request.model` -> `gen_ai_request_model`), kept once
 * made: every recorded request asks for each of its labels.
 */
export function promLabel(name: string): string {
  let label = PROM_LABELS.get(name);
  if (label === undefined) PROM_LABELS.set(name, (label = name.replaceAll(".", "_")));
  return label;
}
