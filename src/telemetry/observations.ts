import type { RequestRecord } from "../request-log/record.js";
import { cutLabel, keyPart, ModelLabels } from "./label-caps.js";
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

/** The label sets a record's points carry, made once for every record of the same labels. */
interface LabelSets {
  request: Attributes;
  cost: Attributes;
  /** Undefined for a record that is no model call. */
  call: { attributes: Attributes; ttft: Attributes | undefined; input: Attributes | undefined; output: Attributes | undefined } | undefined;
}

/**
 * Label sets kept by their values; past this many the kept ones are dropped and made again as records come (a
 * client that sends a new model id with every request), so the map stays bounded as the label caps keep a scrape.
 */
export const MAX_KEPT_LABEL_SETS = 2_000;

/**
 * Turns each record into the points of every metric (SPEC 12, Metrics), the label caps applied: one `ModelLabels` per
 * metric, so each keeps its own first 500 models. One per gateway, shared by its Prometheus and OTLP exports so both
 * count the same model as `other`. `kindOf` names an upstream's kind (`gen_ai.provider.name`).
 *
 * A record's label sets are made once for all the records of the same labels and handed out again, frozen (issue
 * 53: a record allocated 8-10 small objects for its labels, and the sums built a key string per metric; now the
 * sums find a set they have seen by its identity). Skipping `ModelLabels.label` for a model seen before gives the
 * same labels: a model counted is kept, one counted as `other` stays `other`.
 */
export class RequestObserver {
  readonly #kindOf: (upstream: string) => string | undefined;
  readonly #models = { tokens: new ModelLabels(), duration: new ModelLabels(), ttft: new ModelLabels(), cost: new ModelLabels() };
  readonly #kept = new Map<string, LabelSets>();

  constructor(kindOf: (upstream: string) => string | undefined) {
    this.#kindOf = kindOf;
  }

  observe(record: RequestRecord): Observation {
    const isCall = record.format !== undefined && record.upstream !== undefined && record.upstreamFormat !== undefined;
    const provider = isCall ? (this.#kindOf(record.upstream!) ?? "") : undefined;
    const error = errorTypeOf(record);
    const hasTtft = record.stream === true && record.ttfbMs !== undefined && error === undefined;
    const key =
      keyPart(record.format ?? record.family ?? undefined) + keyPart(record.upstream) + keyPart(record.rule) + keyPart(String(record.status)) + keyPart(record.model) + keyPart(record.target) +
      (isCall ? `c${keyPart(provider)}${keyPart(error)}${hasTtft ? "t" : ""}${record.inputTokens === undefined ? "" : "i"}${record.outputTokens === undefined ? "" : "o"}` : "");
    let sets = this.#kept.get(key);
    if (sets === undefined) {
      if (this.#kept.size >= MAX_KEPT_LABEL_SETS) this.#kept.clear();
      this.#kept.set(key, (sets = this.#labelSets(record, provider, error, hasTtft)));
    }
    const { call } = sets;
    return {
      request: sets.request,
      cost: sets.cost,
      call: call && {
        attributes: call.attributes,
        durationSeconds: record.durationMs / 1000,
        timeToFirstToken: call.ttft && { attributes: call.ttft, seconds: record.ttfbMs! / 1000 },
        tokens: tokenPoints(call.input, record.inputTokens, call.output, record.outputTokens),
      },
    };
  }

  #labelSets(record: RequestRecord, provider: string | undefined, error: string | undefined, hasTtft: boolean): LabelSets {
    const upstream = record.upstream ?? "";
    const request = Object.freeze({ format: record.format ?? record.family ?? "", upstream, route: record.rule === undefined ? "" : cutLabel(record.rule), status_code: String(record.status) });
    const cost = Object.freeze({ upstream, [ATTRIBUTES.requestModel]: this.#models.cost.label(record.model) });
    // A model call is a request in a format that went to an upstream (a model list, a refusal or a local count is not).
    if (provider === undefined) return { request, cost, call: undefined };
    const served = record.target ?? record.model;
    const labelsFor = (models: ModelLabels): Attributes => ({
      [ATTRIBUTES.operation]: "chat",
      [ATTRIBUTES.provider]: provider,
      [ATTRIBUTES.requestModel]: models.label(record.model),
      [ATTRIBUTES.responseModel]: models.label(served),
    });
    const attributes = labelsFor(this.#models.duration);
    if (error !== undefined) attributes[ATTRIBUTES.errorType] = error;
    const tokenLabels = record.inputTokens === undefined && record.outputTokens === undefined ? undefined : labelsFor(this.#models.tokens);
    const typed = (type: string) => tokenLabels && Object.freeze({ ...tokenLabels, [ATTRIBUTES.tokenType]: type });
    return {
      request,
      cost,
      call: {
        attributes: Object.freeze(attributes),
        ttft: hasTtft ? Object.freeze(labelsFor(this.#models.ttft)) : undefined,
        input: record.inputTokens === undefined ? undefined : typed("input"),
        output: record.outputTokens === undefined ? undefined : typed("output"),
      },
    };
  }
}

/** One point per token type the reply reported. */
function tokenPoints(input: Attributes | undefined, inputTokens: number | undefined, output: Attributes | undefined, outputTokens: number | undefined): CallObservation["tokens"] {
  const tokens: CallObservation["tokens"] = [];
  if (input && inputTokens !== undefined) tokens.push({ attributes: input, count: inputTokens });
  if (output && outputTokens !== undefined) tokens.push({ attributes: output, count: outputTokens });
  return tokens;
}
