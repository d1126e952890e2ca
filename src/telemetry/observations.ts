import type { RequestRecord } from "../request-log/record.js";
import { cutLabel, ModelLabels } from "./label-caps.js";
import { ATTRIBUTES } from "./metric-names.js";

/** Label values by OpenTelemetry attribute name. */
export type Attributes = Record<string, string>;

/** What one finished model call adds to the GenAI metrics. */
export interface CallObservation {
  /** For the duration: operation, provider, both models, and `error.type` when it failed. */
  attributes: Attributes;
  durationSeconds: number;
  /** Only for a stream that sent its client a first byte. */
  timeToFirstToken: { attributes: Attributes; seconds: number } | undefined;
  /** One point per token type the reply reported. */
  tokens: { attributes: Attributes; count: number }[];
}

/** What one recorded request adds to the metrics (the cost is added once the record is priced). */
export interface Observation {
  request: Attributes;
  /** Undefined unless the request was a model call routed to an upstream. */
  call: CallObservation | undefined;
  /** The cost counter's labels; the value is the record's price. */
  cost: Attributes;
}

/** Where observations go: the Prometheus registry, the OTLP meter. */
export interface MetricsSink {
  add(observation: Observation, costUsd: number | undefined): void;
}

/**
 * Why a request failed, for `error.type`: its status when it is an error status (the OpenTelemetry HTTP convention),
 * else why a started reply ended early; undefined when it succeeded.
 */
export function errorTypeOf(record: Pick<RequestRecord, "status" | "outcome">): string | undefined {
  if (record.status >= 400) return String(record.status);
  return record.outcome === "complete" ? undefined : record.outcome;
}

/**
 * Turns each record into the points of every metric (SPEC 12, Metrics), the label caps applied: one `ModelLabels` per
 * metric, so each keeps its own first 500 models. One per gateway, shared by its Prometheus and OTLP exports so both
 * count the same model as `other`. `kindOf` names an upstream's kind (`gen_ai.provider.name`).
 */
export class RequestObserver {
  readonly #kindOf: (upstream: string) => string | undefined;
  readonly #models = { tokens: new ModelLabels(), duration: new ModelLabels(), ttft: new ModelLabels(), cost: new ModelLabels() };

  constructor(kindOf: (upstream: string) => string | undefined) {
    this.#kindOf = kindOf;
  }

  observe(record: RequestRecord): Observation {
    const upstream = record.upstream ?? "";
    const request = { format: record.format ?? record.family ?? "", upstream, route: record.rule === undefined ? "" : cutLabel(record.rule), status_code: String(record.status) };
    const cost = { upstream, [ATTRIBUTES.requestModel]: this.#models.cost.label(record.model) };
    return { request, call: this.#call(record), cost };
  }

  #call(record: RequestRecord): CallObservation | undefined {
    // A model call is a request in a format that went to an upstream (a model list, a refusal or a local count is not).
    if (record.format === undefined || record.upstream === undefined || record.upstreamFormat === undefined) return undefined;
    const provider = this.#kindOf(record.upstream) ?? "";
    const served = record.target ?? record.model;
    const labelsFor = (models: ModelLabels): Attributes => ({
      [ATTRIBUTES.operation]: "chat",
      [ATTRIBUTES.provider]: provider,
      [ATTRIBUTES.requestModel]: models.label(record.model),
      [ATTRIBUTES.responseModel]: models.label(served),
    });
    const error = errorTypeOf(record);
    const attributes = labelsFor(this.#models.duration);
    if (error !== undefined) attributes[ATTRIBUTES.errorType] = error;
    const tokenLabels = record.inputTokens === undefined && record.outputTokens === undefined ? undefined : labelsFor(this.#models.tokens);
    const tokens: CallObservation["tokens"] = [];
    if (tokenLabels && record.inputTokens !== undefined) tokens.push({ attributes: { ...tokenLabels, [ATTRIBUTES.tokenType]: "input" }, count: record.inputTokens });
    if (tokenLabels && record.outputTokens !== undefined) tokens.push({ attributes: { ...tokenLabels, [ATTRIBUTES.tokenType]: "output" }, count: record.outputTokens });
    const ttft = record.stream && record.ttfbMs !== undefined && error === undefined ? { attributes: labelsFor(this.#models.ttft), seconds: record.ttfbMs / 1000 } : undefined;
    return { attributes, durationSeconds: record.durationMs / 1000, timeToFirstToken: ttft, tokens };
  }
}
